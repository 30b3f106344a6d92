"""graph.pbtxt's text, byte for byte as `tf.io.write_graph` writes it, in a third of the time.

`tf.io.write_graph` prints the GraphDef with protobuf's Python text printer
(`text_format.MessageToString`): 0.16 s for model_to_estimator's seed CNN on 2 devices
(1.5 MB of text), before the first step; 0.055 s here (docs/benchmarks.md). protobuf's
C printer (`str(message)`) differs from the Python printer in two ways only, both put
right here:

- map entries (a node's `attr`, a function's `ret`, ...): the Python printer sorts them
  by key; the C printer prints them in its hash order. The GraphDef is parsed into a
  copy of its own schema whose map fields are plain repeated entry messages (the same
  wire format, and the same text), and those lists are sorted by key.
- float and double fields: the Python printer writes the shortest digits that read back
  the same (`1.0`, `0.27216554`), the C printer `1`, `0.272165537`. Those lines are
  rewritten with the Python printer's own formatting. That is `tf.io.write_graph`'s on
  TensorFlow 2.21; 2.15 (the original's) to 2.20 pass `float_format=''`, and a float
  field then reads `0.10000000149011612` (every digit of the double it widens to):
  `write_graph_args()` says which, and the rewrite follows it (a protobuf 7 that no
  longer takes `float_format` under 2.20 prints as 2.21: tf_internals/patches.py, 6).

Where either rule might not hold (a field name the schema uses for a float and for
something else, text that is not ASCII, a protobuf runtime other than upb), the Python
printer writes the file, as before. Nor are those two the only differences on every
protobuf TensorFlow 2.16-2.21 allow: upb's printer of protobuf 5.29 (TF 2.18/2.19)
leaves `'`, `"` and `\\` in strings unescaped, and 4.25's (TF 2.16/2.17) orders some
fields differently. So on first use a small probe GraphDef holding every kind of field
and every awkward character (`_probe_graph_def`) is printed both ways, and the C
printer is used only where the bytes are equal (docs/versions.md says where).

Long bytes are the C printer's slow part: a graph that holds its input's arrays as
constants (16,384 labels: a 655 KB `tensor_content`, 3.7 MB of text) spends most of
its printing time escaping them. Each node attr's `tensor_content` of 4 KiB or more is
therefore swapped for a marker before printing and escaped afterwards through the
Python printer's own table (`text_encoding.CEscape` of each byte value), some 3x faster.
`graph_text_test.py` compares the two printers on the graphs estimator_lib builds.
"""

import functools
import operator
import re
import secrets
from typing import Dict, List, Optional

import tensorflow as tf
from google.protobuf import descriptor
from google.protobuf import descriptor_pb2
from google.protobuf import descriptor_pool
from google.protobuf import message_factory
from google.protobuf import text_encoding
from google.protobuf import text_format
from google.protobuf.internal import api_implementation
from google.protobuf.internal import type_checkers

from estimator_lib.tf_internals import patches
from estimator_lib.tf_internals import versions

_ENTRY_KEY = operator.attrgetter("key")
_FLOAT_TYPES = (descriptor.FieldDescriptor.TYPE_FLOAT, descriptor.FieldDescriptor.TYPE_DOUBLE)
# A tensor_content this long is escaped after printing (module docstring).
_LIFT_BYTES = 4096


class _Schema:
    """GraphDef's schema with maps as repeated entries, and what the rewrite needs of it."""

    def __init__(self):
        pool = descriptor_pool.DescriptorPool()
        added = set()

        def add(file_descriptor):
            if file_descriptor.name in added:
                return
            for dependency in file_descriptor.dependencies:
                add(dependency)
            added.add(file_descriptor.name)
            proto = descriptor_pb2.FileDescriptorProto()
            file_descriptor.CopyToProto(proto)
            _strip_map_entries(proto.message_type)
            pool.Add(proto)

        root = tf.compat.v1.GraphDef.DESCRIPTOR
        add(root.file)
        self.graph_def_class = message_factory.GetMessageClass(
            pool.FindMessageTypeByName(root.full_name))
        types = {}
        _collect(root, types)
        float_names, double_names, other_names = set(), set(), set()
        for message_type in types.values():
            for field in message_type.fields:
                if field.type in _FLOAT_TYPES:
                    float_names.add(field.name)
                    if field.type == descriptor.FieldDescriptor.TYPE_DOUBLE:
                        double_names.add(field.name)
                else:
                    other_names.add(field.name)
        # A printed line `name: value` is a float's only where no other field has the name.
        self.usable = not float_names & other_names
        self.float_names = sorted(float_names)
        self.double_names = double_names
        # Which types hold a map, directly or below (a fixed point: the schema recurses).
        holds = {name for name, message_type in types.items()
                 if any(_is_map(field) for field in message_type.fields)}
        while True:
            more = {name for name, message_type in types.items() if name not in holds and any(
                field.message_type is not None and field.message_type.full_name in holds
                for field in message_type.fields)}
            if not more:
                break
            holds |= more
        # Per type: (field name, is a map, repeated, the message type to walk below or None).
        self._walks = {}
        for name in holds:
            walks = []
            for field in types[name].fields:
                if field.message_type is None:
                    continue
                is_map = _is_map(field)
                value_type = (field.message_type.fields_by_name["value"].message_type
                              if is_map else field.message_type)
                below = (value_type.full_name
                         if value_type is not None and value_type.full_name in holds else None)
                if is_map or below:
                    walks.append((field.name, is_map, _repeated(field), below))
            self._walks[name] = walks

    def sort_maps(self, message, type_name):
        """Sorts every ex-map list under `message` by key, as the Python printer does."""
        for name, is_map, repeated, below in self._walks.get(type_name, ()):
            if repeated:
                values = getattr(message, name)
                if not values:
                    continue
                if is_map:
                    values.sort(key=_ENTRY_KEY)
                    if below:
                        for entry in values:
                            if entry.HasField("value"):
                                self.sort_maps(entry.value, below)
                else:
                    for value in values:
                        self.sort_maps(value, below)
            elif message.HasField(name):
                self.sort_maps(getattr(message, name), below)


def _repeated(field) -> bool:
    # `is_repeated` is protobuf 6+'s (7 dropped `label`); 4.25 and 5.29 have `label` only.
    is_repeated = getattr(field, "is_repeated", None)
    if is_repeated is not None:
        return bool(is_repeated)
    return field.label == descriptor.FieldDescriptor.LABEL_REPEATED


def _is_map(field) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _collect(message_type, types):
    if message_type.full_name in types:
        return
    types[message_type.full_name] = message_type
    for field in message_type.fields:
        if field.message_type is not None:
            _collect(field.message_type, types)


def _strip_map_entries(message_types):
    for message_type in message_types:
        if message_type.options.map_entry:
            message_type.options.ClearField("map_entry")
        _strip_map_entries(message_type.nested_type)


@functools.lru_cache(maxsize=None)
def _byte_escapes() -> List[str]:
    """Each byte value as the Python printer escapes it in a bytes field: `str.translate`
    of bytes read as Latin-1 with this table gives `text_encoding.CEscape(data, False)`.
    Made on first use (0.2 ms), not at import."""
    return [text_encoding.CEscape(bytes([value]), False) for value in range(256)]


@functools.lru_cache(maxsize=None)
def write_graph_args() -> Dict[str, str]:
    """The arguments this TensorFlow's `tf.io.write_graph` gives
    `text_format.MessageToString`: `float_format=''` on TensorFlow 2.20 and earlier
    (where protobuf still takes it), none on 2.21 and later (module docstring)."""
    if versions.minor(versions.tensorflow_version()) <= (2, 20) and patches.takes_float_format():
        return {"float_format": ""}
    return {}


@functools.lru_cache(maxsize=None)
def _schema() -> Optional[_Schema]:
    """The schema for the C printer's path, or None where the Python printer must print:
    another runtime than upb, or a printer whose text of the probe is not the Python
    printer's."""
    if api_implementation.Type() != "upb":  # Only upb's printer is compared here.
        return None
    schema = _Schema()
    if not schema.usable:
        return None
    probe = _probe_graph_def()
    if _c_printer_text(probe, schema) != text_format.MessageToString(probe,
                                                                     **write_graph_args()):
        return None
    return schema


# A GraphDef with every kind of field a GraphDef's text holds: strings and bytes with
# quotes, backslashes and control bytes, ints, bools, enums, floats, doubles, maps in
# maps, integer-keyed maps, oneofs, repeated fields, a function library (whose field
# number, 2, is below `versions`' 4 though declared after it); keys out of order.
_AWKWARD = r'"\'q\"\\ \n\t\r\000\177\200\377?"'
_PROBE_TEXT = f"""
node {{
  name: "a'\\"b\\\\c" op: "Const" input: "x'\\"\\\\" input: "^y" device: "/cpu:0"
  attr {{ key: "s" value {{ s: {_AWKWARD} }} }}
  attr {{ key: "i" value {{ i: -3 }} }}
  attr {{ key: "f" value {{ f: 0.1 }} }}
  attr {{ key: "b" value {{ b: true }} }}
  attr {{ key: "type" value {{ type: DT_STRING }} }}
  attr {{ key: "shape" value {{ shape {{ dim {{ size: -1 name: "n'\\"" }} }} }} }}
  attr {{ key: "placeholder" value {{ placeholder: "T" }} }}
  attr {{ key: "value" value {{ tensor {{
    dtype: DT_FLOAT tensor_shape {{ dim {{ size: 2 }} }} tensor_content: {_AWKWARD}
    float_val: 0.1 float_val: 1 float_val: nan float_val: -inf float_val: 1e-45
    double_val: 0.3333333333333333 double_val: -0.0 half_val: 15360
    string_val: {_AWKWARD} string_val: "float_val: 1" }} }} }}
  attr {{ key: "list" value {{ list {{
    s: {_AWKWARD} s: "" i: 0 i: -1 f: 0.27216554 f: 16777217 b: true b: false
    type: DT_FLOAT type: DT_INT32 shape {{ unknown_rank: true }}
    tensor {{ dtype: DT_INT64 int64_val: -1 int64_val: 1099511627776 }}
    func {{ name: "f" attr {{ key: "k" value {{ s: {_AWKWARD} }} }} }} }} }} }}
  attr {{ key: "func" value {{ func {{ name: "f"
    attr {{ key: "z" value {{ i: 1 }} }}
    attr {{ key: "m" value {{ func {{ attr {{ key: "y" value {{ f: 0.9 }} }} }} }} }}
    attr {{ key: "a" value {{ s: {_AWKWARD} }} }} }} }} }}
  experimental_debug_info {{ original_node_names: "o'\\"" }}
}}
versions {{ producer: 1 bad_consumers: 2 }}
library {{
  function {{
    signature {{ name: "f" input_arg {{ name: "a" type: DT_FLOAT }} }}
    node_def {{ name: "n" op: "Const" }}
    ret {{ key: "r" value: "a'\\":0" }}
    ret {{ key: "b" value: "a" }}
    arg_attr {{ key: 1 value {{ attr {{ key: "_x" value {{ s: {_AWKWARD} }} }} }} }}
    arg_attr {{ key: 0 value {{ attr {{ key: "_y" value {{ b: true }} }} }} }}
    resource_arg_unique_id {{ key: 3 value: 1 }}
    resource_arg_unique_id {{ key: 1 value: 2 }}
  }}
  gradient {{ function_name: "f" gradient_func: "g" }}
}}
"""


def _probe_graph_def():
    """The probe GraphDef (`_PROBE_TEXT`), with a tensor_content long enough to be
    escaped after printing (every byte value)."""
    graph_def = text_format.Parse(_PROBE_TEXT, tf.compat.v1.GraphDef())
    tensor = graph_def.library.function[0].node_def[0].attr["value"].tensor
    tensor.tensor_content = bytes(range(256)) * (_LIFT_BYTES // 256)
    return graph_def


def _python_number(name: str, text: str, double_names) -> str:
    value = float(text)
    if value != value:
        return "nan"
    if name in double_names:
        return str(value)
    value = type_checkers.TruncateToFourByteFloat(value)
    if write_graph_args():  # float_format='': every digit of the widened double.
        return str(value)
    return str(type_checkers.ToShortestFloat(value))


def graph_text(graph_def) -> str:
    """`text_format.MessageToString(graph_def, **write_graph_args())`, the same string,
    printed by protobuf's C printer.

    Args:
        graph_def: A `tf.compat.v1.GraphDef`.

    Returns:
        The text form of `graph_def`, as `tf.io.write_graph(..., as_text=True)` writes it.
    """
    schema = _schema()
    if schema is None or not hasattr(graph_def, "SerializeToString"):
        return text_format.MessageToString(graph_def, **write_graph_args())
    text = _c_printer_text(graph_def, schema)
    if text is None:
        return text_format.MessageToString(graph_def, **write_graph_args())
    return text


def _c_printer_text(graph_def, schema: _Schema) -> Optional[str]:
    """The C printer's text of `graph_def`, put right (module docstring); None where
    it cannot be shown equal to the Python printer's."""
    mirror = schema.graph_def_class.FromString(graph_def.SerializeToString())
    schema.sort_maps(mirror, tf.compat.v1.GraphDef.DESCRIPTOR.full_name)
    token = secrets.token_hex(8)
    lifted = _lift_tensor_contents(mirror, token)
    text = str(mirror)
    if not text.isascii():
        # The printers' escaping of non-ASCII text is not shown equal here: the slow way.
        return None
    text = _python_floats(text, schema.float_names, schema.double_names)
    if not lifted:
        return text

    escapes = _byte_escapes()

    def escaped(match):
        index = int(match.group(1))
        if index >= len(lifted):  # A string of the graph's that reads as a marker.
            return match.group(0)
        return '"' + lifted[index].decode("latin-1").translate(escapes) + '"'

    text, count = re.subn(f'"{token}:([0-9]+)"', escaped, text)
    # Each marker once, and nothing else that reads as one: else the slow way.
    return text if count == len(lifted) else None


def _lift_tensor_contents(graph_def, token: str) -> List[bytes]:
    """Swaps each node attr's long `tensor_content` in `graph_def` (the mirror) for the
    marker `token:index`; returns the contents, by index."""
    lifted = []
    nodes = list(graph_def.node)
    for function in graph_def.library.function:
        nodes.extend(function.node_def)
    for node in nodes:
        for entry in node.attr:  # The mirror's maps are lists of entries.
            if not entry.value.HasField("tensor"):
                continue
            tensor = entry.value.tensor
            if len(tensor.tensor_content) >= _LIFT_BYTES:
                lifted.append(tensor.tensor_content)
                tensor.tensor_content = f"{token}:{len(lifted) - 1}".encode()
    return lifted


def _python_floats(text: str, float_names, double_names) -> str:
    """Rewrites each float field's line `name: number` as the Python printer prints it."""
    edits = []
    printed = {}  # A graph repeats its constants' values (1, 0, 0.5, ...): each printed once.
    for name in float_names:
        needle = f"{name}: "
        at = text.find(needle)
        while at >= 0:
            line_start = text.rfind("\n", 0, at) + 1
            start = at + len(needle)
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if not text[line_start:at].strip(" "):  # The field's own line, not inside a string.
                key = (name, text[start:end])
                if key not in printed:
                    printed[key] = _python_number(name, key[1], double_names)
                edits.append((start, end, printed[key]))
            at = text.find(needle, end)
    if not edits:
        return text
    edits.sort()
    pieces, done = [], 0
    for start, end, number in edits:
        pieces.append(text[done:start])
        pieces.append(number)
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
