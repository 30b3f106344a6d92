"""The original `export/export.py`'s and `exporter.py`'s private helpers, by their names
and signatures.

Libraries with serving receivers or exporters of their own import these from
`tensorflow_estimator.python.estimator.export.export` (and `export_lib`) and
`...exporter`; compat.install() puts each there (legacy/original_tree.py). They are
export/receivers.py's and export/exporters.py's checks under the original's names.
"""

from estimator_lib.export import exporters
from estimator_lib.export import receivers
# export/'s own helpers, under the original's names.
from estimator_lib.export.exporters import _check_compare_fn_args
from estimator_lib.export.receivers import _is_tensor_like
from estimator_lib.export.receivers import _placeholder_like

# pylint: disable=protected-access

_SINGLE_TENSOR_DEFAULT_NAMES = receivers._SINGLE_TENSOR_DEFAULT_NAMES
_SavedModelExporter = exporters._SavedModelExporter
_loss_smaller = exporters._loss_smaller


def _verify_compare_fn_args(compare_fn):
    """ValueError unless `compare_fn` takes exactly best_eval_result and current_eval_result."""
    _check_compare_fn_args(compare_fn)


def _check_tensor(tensor, name, error_label="feature"):
    """ValueError unless `tensor` is a Tensor, SparseTensor or RaggedTensor."""
    if not _is_tensor_like(tensor):
        where = f" {name}" if name else ""
        raise ValueError(
            f"{error_label}{where} must be a Tensor, SparseTensor, or RaggedTensor.")


def _check_tensor_key(name, error_label="feature", allow_ints=False):
    """ValueError unless `name` is a string (or, with `allow_ints`, an int)."""
    if isinstance(name, str):
        return
    if not allow_ints:
        raise ValueError(f"{error_label} keys must be strings: {name}.")
    if not isinstance(name, int):
        raise ValueError(f"{error_label} keys must be strings or ints: {name}.")


def _placeholder_from_tensor(t, default_batch_size=None):
    """A placeholder of `t`'s dtype, shaped `[default_batch_size] + t.shape[1:]`."""
    return _placeholder_like(t, default_batch_size)


def _placeholders_from_receiver_tensors_dict(input_vals, default_batch_size=None):
    """{name: _placeholder_from_tensor(tensor)} of a dict of tensors."""
    return {name: _placeholder_from_tensor(t, default_batch_size)
            for name, t in input_vals.items()}
