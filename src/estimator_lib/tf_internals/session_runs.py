"""Session runs that repeat the same fetches skip rebuilding them each time.

A training loop runs one fetch structure (`{'caller': [train_op, loss], hook:
...}`) thousands of times. `tf.compat.v1.Session.run` re-interprets that
structure on every call (`_FetchHandler`: which tensors, which ops, how to pack
the results), about 0.07 ms, some 7% of a canned estimator's 1 ms step. A
session's `make_callable` interprets it once. `fast_repeated_runs(session)` makes
`session.run` keep one callable per fetch structure it has seen and run through
it whenever a run feeds nothing; the callable takes the run's `options` and
fills its `run_metadata`, so what a run returns and what hooks observe is what
`Session.run` gives. A run that feeds tensors, a graph still being built or a
closed session take `Session.run` itself. The callable runs inside the
session's own error translation (`_do_call`, what `Session.run` uses), so a
failing step raises what `Session.run` raises: the failing op attached, its
message interpolated with where the op was created.

On a local session a run goes further: TensorFlow's callable would still rebuild
the nested result structure every run (`_FetchHandler.build_results`, 16-36 µs a
run of a canned estimator's structure, docs/benchmarks.md). Instead the
structure's distinct tensors and ops run as flat lists through the very call
`make_callable` makes (`TF_SessionRun`, with the run's options and run
metadata), and a packer made once per structure puts the values back. The packer is made from what TensorFlow's own
fetch handler builds when given placeholders for the values, so the structure, its
container types and the values shared between duplicate fetches are what
`Session.run` gives; a structure it cannot copy that way (tensor handles,
containers other than dict, list, tuple and namedtuple) keeps `make_callable`.

Why not a C++ callable (`Session._make_callable_from_options`), some 20 µs a run
faster still: each callable builds executors of its own, where `TF_SessionRun`
keeps one set per list of fetched names for all runs of the session. A traced run
(a hook's `RunOptions`) cannot use an untraced callable, so its first run built
executors inside the traced step, 0.1-0.8 s that `InputStallHook` then read as
compute; and structures that differ only in which hook asked for a tensor each
built their own. Through `TF_SessionRun` a traced run reuses the executors the
untraced runs of the same tensors built, as with `Session.run`.
"""

import collections
import threading

# pylint: disable=g-direct-tensorflow-import
from tensorflow.python.client import pywrap_tf_session as tf_session
from tensorflow.python.client import session as session_lib
# pylint: enable=g-direct-tensorflow-import

# Fetch structures a session keeps callables for; beyond it, the oldest is dropped.
_MAX_CALLABLES = 32


def _structure_key(fetches, leaves):
    """A hashable key equal for two fetch structures that run the same way; appends
    the structure's objects that the key holds by identity to `leaves`.

    Containers by type and keys (dict keys by identity unless strings: hooks key
    their fetches by the hook object), leaves by identity (tensors, ops), names by value.
    """
    if isinstance(fetches, dict):
        items = []
        for k, v in fetches.items():
            if not isinstance(k, str):
                leaves.append(k)
                k = id(k)
            items.append((k, _structure_key(v, leaves)))
        return (type(fetches), tuple(items))
    if isinstance(fetches, (list, tuple)):
        return (type(fetches), tuple(_structure_key(v, leaves) for v in fetches))
    if isinstance(fetches, str):
        return fetches
    leaves.append(fetches)
    return id(fetches)


def fast_repeated_runs(session):
    """Makes `session.run` reuse one callable per fetch structure (module docstring)."""
    plain_run = session.run
    callables = collections.OrderedDict()
    lock = threading.Lock()

    def run(fetches, feed_dict=None, options=None, run_metadata=None):
        if feed_dict or session._closed or not session.graph.finalized:  # pylint: disable=protected-access
            return plain_run(fetches, feed_dict=feed_dict, options=options,
                             run_metadata=run_metadata)
        leaves = []
        key = _structure_key(fetches, leaves)
        with lock:  # hooks and user threads may run the session concurrently
            entry = callables.get(key)
            if entry is not None:
                callables.move_to_end(key)
        if entry is None:
            # The entry keeps the key's objects alive, so that their ids stay theirs.
            entry = [_flat_run(session, fetches), None, leaves]
            with lock:
                callables[key] = entry
                if len(callables) > _MAX_CALLABLES:
                    callables.popitem(last=False)
        flat = entry[0]
        if flat is not None:
            return session._do_call(  # pylint: disable=protected-access
                lambda: flat(options, run_metadata))
        if entry[1] is None:
            entry[1] = session.make_callable(fetches, accept_options=True)
        return session._do_call(  # pylint: disable=protected-access
            lambda: entry[1](options=options, run_metadata=run_metadata))

    session.run = run
    return session


class _Slot:
    """Stands for the value of the `index`-th distinct tensor of a structure."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


class _Unsupported(Exception):
    """The structure holds something a packer cannot copy."""


def _flat_run(session, fetches):
    """A function of (options, run_metadata) that runs `fetches` as `Session.run`
    does, or None where a structure or session keeps `make_callable` (module docstring)."""
    if session.sess_str:  # Remote (multi-worker, parameter servers): Session.run's path.
        return None
    # pylint: disable-next=protected-access
    handler = session_lib._FetchHandler(session.graph, fetches, {})
    tensors = handler.fetches()
    try:
        pack = _packer(handler.build_results(session, [_Slot(i) for i in range(len(tensors))]))
    except _Unsupported:
        return None
    if not tensors and not handler.targets():  # Session.run runs nothing and returns the
        return lambda options, run_metadata: pack(())  # structure (a run would raise).
    # pylint: disable=protected-access
    fetch_list = [t._as_tf_output() for t in tensors]
    target_list = [op._c_op for op in handler.targets()]
    run_flat = session._call_tf_sessionrun
    # pylint: enable=protected-access

    def flat(options, run_metadata):
        # What Session.run and make_callable do around the run, less build_results.
        options_ptr = (tf_session.TF_NewBufferFromString(options.SerializeToString())
                       if options is not None and options.ByteSize() else None)
        metadata_ptr = tf_session.TF_NewBuffer() if run_metadata is not None else None
        try:
            values = run_flat(options_ptr, {}, fetch_list, target_list, metadata_ptr)
            if metadata_ptr is not None:
                run_metadata.ParseFromString(tf_session.TF_GetBuffer(metadata_ptr))
        finally:
            if metadata_ptr is not None:
                tf_session.TF_DeleteBuffer(metadata_ptr)
            if options_ptr is not None:
                tf_session.TF_DeleteBuffer(options_ptr)
        return pack(values)

    return flat


def _packer(template):
    """A function of the flat values that builds `template`'s structure, `_Slot`s
    replaced by their values; containers rebuilt as the fetch handler builds them."""
    kind = type(template)
    if template is None:  # A fetched op.
        return lambda values: None
    if kind is _Slot:
        index = template.index
        return lambda values: values[index]
    if kind is dict:
        parts = [(k, _packer(v)) for k, v in template.items()]
        return lambda values: {k: part(values) for k, part in parts}
    if kind is list or kind is tuple:
        parts = [_packer(v) for v in template]
        if kind is list:
            return lambda values: [part(values) for part in parts]
        return lambda values: tuple([part(values) for part in parts])
    if not issubclass(kind, tuple):
        raise _Unsupported(kind)
    try:  # A namedtuple (SparseTensorValue is one), built as the fetch handler does.
        kind._fields  # pylint: disable=pointless-statement
    except AttributeError:
        raise _Unsupported(kind) from None
    parts = [_packer(v) for v in template]
    return lambda values: kind(*[part(values) for part in parts])
