"""TrainSpec and EvalSpec: what train_and_evaluate trains and evaluates, checked as the
original checked them; and the original's checks of specs, hooks and listeners."""

import collections
from typing import Callable, Optional

import tensorflow as tf

from estimator_lib.core.model_fn import check_hooks
from estimator_lib.export import exporters as exporter_lib

_HOOKS_LEAD = "All hooks must be `SessionRunHook` instances"
_LISTENERS_LEAD = "All saving_listeners must be `CheckpointSaverListener` instances"


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks",
                                                     "saving_listeners"])):
    """The training half of `train_and_evaluate`: input, step limit, hooks, listeners.

    Args:
        input_fn: Returns the training input, as for `Estimator.train`.
        max_steps: The global step to stop training at; None trains until the input
            ends (with a repeating dataset: forever).
        hooks: `SessionRunHook`s run in the training loop.
        saving_listeners: `CheckpointSaverListener`s called around each checkpoint
            save (local runs only, as the original).

    Raises:
        TypeError: If `input_fn` is not callable, or a hook or listener has the wrong
            type.
        ValueError: If `max_steps` is not positive.

    Examples:
        >>> spec = TrainSpec(input_fn=lambda: None, max_steps=1000)
        >>> spec.max_steps, spec.hooks, spec.saving_listeners
        (1000, (), ())
        >>> TrainSpec(input_fn=lambda: None, max_steps=0)
        Traceback (most recent call last):
        ...
        ValueError: Must specify max_steps > 0, given: 0
    """

    def __new__(cls, input_fn: Callable, max_steps: Optional[int] = None, hooks=None,
                saving_listeners=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(
            cls, input_fn=input_fn, max_steps=max_steps,
            hooks=_validate_hooks(hooks),
            saving_listeners=_validate_saving_listeners(saving_listeners))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """The evaluation half of `train_and_evaluate`: input, steps, exporters, cadence.

    Args:
        input_fn: Returns the evaluation input, as for `Estimator.evaluate`.
        steps: How many batches each evaluation reads; None reads until the input ends.
        name: Names the evaluation (its summaries go to `eval_<name>`).
        hooks: `SessionRunHook`s run in each evaluation.
        exporters: An `Exporter` or a list of them (with distinct names), run after
            each evaluation with its metrics.
        start_delay_secs: In a distributed job, how long the evaluator waits before
            its first evaluation.
        throttle_secs: The least time between two evaluations: a new checkpoint is
            evaluated only if this long has passed since the last evaluation began.

    Raises:
        TypeError: If `input_fn` is not callable, `name` is not a string, or a hook or
            exporter has the wrong type.
        ValueError: If `steps` is not positive, a delay is negative, or two exporters
            share a name.

    Examples:
        >>> spec = EvalSpec(input_fn=lambda: None)
        >>> spec.steps, spec.name, spec.start_delay_secs, spec.throttle_secs, spec.exporters
        (100, None, 120, 600, ())
        >>> EvalSpec(input_fn=lambda: None, throttle_secs=-1)
        Traceback (most recent call last):
        ...
        ValueError: Must specify throttle_secs >= 0, given: -1
    """

    def __new__(cls, input_fn: Callable, steps: Optional[int] = 100,
                name: Optional[str] = None, hooks=None, exporters=None,
                start_delay_secs: float = 120, throttle_secs: float = 600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name!r}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(
            cls, input_fn=input_fn, steps=steps, name=name,
            hooks=_validate_hooks(hooks),
            exporters=_validate_exporters(exporters), start_delay_secs=start_delay_secs,
            throttle_secs=throttle_secs)


def _validate_exporters(exporters):
    if exporters is None:
        return ()
    if isinstance(exporters, exporter_lib.Exporter):
        exporters = [exporters]
    try:
        exporters = list(exporters)
    except TypeError:
        raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or "
                        f"`None`, found {exporters!r}.") from None
    names = set()
    for exporter in exporters:
        if not isinstance(exporter, exporter_lib.Exporter):
            raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or "
                            f"`None`, found {exporter!r}.")
        if exporter.name is None or (isinstance(exporter.name, str)
                                     and not exporter.name.strip()):
            raise ValueError("An Exporter cannot have a name that is `None` or empty.")
        if not isinstance(exporter.name, str):
            raise ValueError(f"An Exporter must have a string name. Given: {exporter.name!r}")
        if exporter.name in names:
            raise ValueError(f"`exporters` must have unique names. Such a name cannot be "
                             f"`None`. {exporter.name} already exists.")
        names.add(exporter.name)
    return tuple(exporters)


def _validate_input_fn(input_fn):
    """TypeError unless `input_fn` is callable."""
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


def _validate_hooks(hooks):
    """The hooks as a tuple; TypeError for one that is not a SessionRunHook."""
    return check_hooks(hooks, "hooks", lead=_HOOKS_LEAD)


def _validate_saving_listeners(saving_listeners):
    """The listeners as a tuple; TypeError for one that is not a CheckpointSaverListener."""
    return check_hooks(saving_listeners, "saving_listeners",
                       tf.compat.v1.train.CheckpointSaverListener, lead=_LISTENERS_LEAD)


def _assert_eval_spec(eval_spec):
    """TypeError unless `eval_spec` is an EvalSpec."""
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. "
                        f"Got: {type(eval_spec)}")
