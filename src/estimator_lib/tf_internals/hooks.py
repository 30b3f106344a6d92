"""Attaching CheckpointSaverListeners to a saver hook that already exists.

`tf.compat.v1.train.CheckpointSaverHook` takes its listeners only in its constructor;
the Estimator attaches train()'s `saving_listeners` to whichever saver hook the plan
holds (ours, TensorFlow's, or one the model_fn built), as the original did, through
the hook's private `_listeners` list (registry.py lists it).
"""

from typing import Sequence


def add_saver_listeners(saver_hook, listeners: Sequence) -> None:
    """Appends to `saver_hook`'s listeners those of `listeners` it does not hold yet.

    Ours and TensorFlow's keep them in `_listeners`. A hook passed to several train()
    calls with the same listeners (adanet's iterations) holds each once, as the
    original's.
    """
    held = saver_hook._listeners  # pylint: disable=protected-access
    for listener in listeners:
        if listener not in held:
            held.append(listener)
