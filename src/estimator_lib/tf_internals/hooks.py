"""Attaching CheckpointSaverListeners to a saver hook that already exists.

`tf.compat.v1.train.CheckpointSaverHook` takes its listeners only in its constructor;
the Estimator attaches train()'s `saving_listeners` to whichever saver hook the plan
holds (ours, TensorFlow's, or one the model_fn built), as the original did, through
the hook's private `_listeners` list (registry.py lists it).
"""

from typing import Sequence


def add_saver_listeners(saver_hook, listeners: Sequence) -> None:
    """Appends `listeners` to `saver_hook`'s listeners (ours and TensorFlow's keep them
    in `_listeners`)."""
    saver_hook._listeners.extend(listeners)  # pylint: disable=protected-access
