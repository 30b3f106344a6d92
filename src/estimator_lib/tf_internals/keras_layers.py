"""The RNN estimators' writes into tf_keras layers and tensors (the original made them).

- `enable_caching_device(cell)`: tf_keras' private `_enable_caching_device` switch on a
  cell, so its variables are read once per session run rather than at every step of
  the tf.while loop (the original's canned/rnn.py set it);
- `set_keras_mask` / `keras_mask`: tf_keras' private `_keras_mask` on the logits, which
  Keras losses and metrics read to skip the padding, and which the sequential head
  takes the sequence mask from.
"""


def enable_caching_device(cell) -> None:
    """Sets a tf_keras RNN cell's caching-device switch, where it has one."""
    if hasattr(cell, "_enable_caching_device"):
        cell._enable_caching_device = True  # pylint: disable=protected-access


def set_keras_mask(tensor, mask) -> None:
    """Attaches `mask` to `tensor` as tf_keras does to a layer's output."""
    tensor._keras_mask = mask  # pylint: disable=protected-access


def keras_mask(tensor):
    """The mask tf_keras attached to `tensor` (None without one)."""
    return getattr(tensor, "_keras_mask", None)
