"""Several training steps per session run: the model_fn inside a bounded in-graph loop.

With `RunConfig(steps_per_run=N)`, `train()` calls the model_fn inside the body of
a `tf.while_loop` (control flow v2) that takes its own batch from the input
iterator on every iteration, so one session run makes up to N steps and the fixed
cost of a run (hooks, feeds, the executor's start) is paid once per N steps, as
Orbit's steps_per_loop and Keras' steps_per_execution do. Variables, Keras
weights and optimizer slots are created through `init_scope` and live in the
outer graph, so checkpoints hold the same names as with one step per run.

The loop stops exactly where training must: its condition compares the global
step after each iteration with the last step of the run's StopAtStepHooks
(`train(steps=...)` / `train(max_steps=...)`), fed on every run, and the input's
end ends the run (and training) as it ends a single step.

What the body builds exists only inside the loop: summaries made by the model_fn
are dropped (the Estimator's own `loss` summary is made from the loop's loss),
and the model_fn's hooks may not refer to the loop's tensors. The Estimator's own
hooks count steps from the global step after the loop.
"""

import dataclasses
import math
from typing import Callable, Optional

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import while_v2
from tensorflow.python.trackable import base as trackable_base
from tensorflow.python.training import training_util

from estimator_lib.distribute import job_shape
from estimator_lib.tf_internals import saver as tf_saver
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys

logging = tf.compat.v1.logging

# Fed with the last step of the run; without a StopAtStepHook nothing caps the loop.
_NO_LAST_STEP = np.iinfo(np.int64).max

# The graph collection holding the global step after a run's loop (hooks count steps).
STEP_AFTER_RUN_KEY = "estimator_lib_step_after_run"

# Collections whose loop-made items would break the session's start or its savers.
_FATAL_COLLECTIONS = (
    tf.compat.v1.GraphKeys.TABLE_INITIALIZERS, tf.compat.v1.GraphKeys.RESOURCES,
    tf.compat.v1.GraphKeys.LOCAL_RESOURCES, tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS,
    tf.compat.v1.GraphKeys.QUEUE_RUNNERS, tf.compat.v1.GraphKeys.INIT_OP,
    tf.compat.v1.GraphKeys.LOCAL_INIT_OP, tf.compat.v1.GraphKeys.READY_OP,
    tf.compat.v1.GraphKeys.READY_FOR_LOCAL_INIT_OP)


def check_supported(job) -> None:
    """Raises if `job` (a JobShape) trains in a way the in-graph loop does not support.

    Raises:
        ValueError: If `train_distribute` is anything but a one-machine
            MirroredStrategy (multi-worker collectives are left out of the loop),
            or resource variables are off (only they can be updated in the loop).
    """
    if not tf.compat.v1.resource_variables_enabled():
        raise ValueError(
            f"`steps_per_run` > 1 needs resource variables, which the loop updates in place; "
            "tf.compat.v1.disable_resource_variables() (or disable_v2_behavior()) turned "
            f"them off. Received: steps_per_run={job.steps_per_run}. Enable them "
            "(tf.compat.v1.enable_resource_variables()) or use steps_per_run=1.")
    strategy = job.strategy
    if strategy is None:
        return
    if job.mode == job_shape.MULTI_WORKER or not isinstance(
            strategy, tf.distribute.MirroredStrategy):
        raise ValueError(
            f"`steps_per_run` > 1 supports no strategy or a one-machine "
            f"tf.distribute.MirroredStrategy; multi-worker training runs one step per "
            f"session run. Received: steps_per_run={job.steps_per_run}, "
            f"train_distribute={type(strategy).__name__}"
            f"{' over a TF_CONFIG cluster' if job.mode == job_shape.MULTI_WORKER else ''}. "
            "Use steps_per_run=1.")


def step_after_run_tensor(graph=None) -> Optional[tf.Tensor]:
    """The global step after the current graph's training loop; None without a loop.

    Hooks that count steps fetch it with the global step read before the run: the
    difference is the steps the run made.
    """
    graph = graph or tf.compat.v1.get_default_graph()
    found = graph.get_collection(STEP_AFTER_RUN_KEY)
    return found[0] if found else None


@dataclasses.dataclass(frozen=True)
class TrainLoop:
    """The loop of one train() graph: its spec and tensors (hook_plan builds its hooks).

    Attributes:
        spec: The model_fn's EstimatorSpec with `loss` the loop's last loss and
            `train_op` the loop; hooks and scaffold are the model_fn's.
        steps_per_run: The most steps one run makes.
        step_after_run: The global step when the run's loop has ended.
        last_step: The fed placeholder no iteration may take the global step beyond.
    """

    spec: EstimatorSpec
    steps_per_run: int
    step_after_run: tf.Tensor
    last_step: tf.Tensor

    def runs_for(self, every_n_steps: int) -> int:
        """Runs between two reports every `every_n_steps` steps, rounded up as TPUEstimator."""
        return max(1, math.ceil(every_n_steps / self.steps_per_run))


def make_train_loop(build_step: Callable[[], EstimatorSpec], *,
                    steps_per_run: int) -> TrainLoop:
    """Builds the loop running `build_step`'s train_op up to `steps_per_run` times a run.

    Args:
        build_step: Takes a batch and calls the model_fn (per replica under a
            strategy); returns the TRAIN EstimatorSpec. Called once, in the loop body.
        steps_per_run: The most iterations of one run.

    Returns:
        The TrainLoop; the loop's tensors are in the current (outer) graph.

    Raises:
        ValueError: If the model_fn made something only the outer graph can hold:
            hooks or Scaffold ops on the loop's tensors, tables, queue runners.
    """
    graph = tf.compat.v1.get_default_graph()
    global_step = tf.compat.v1.train.get_global_step()
    step_read = training_util._get_or_create_global_step_read()  # pylint: disable=protected-access
    with tf.name_scope("steps_loop/"):
        last_step = tf.compat.v1.placeholder_with_default(
            tf.constant(_NO_LAST_STEP, global_step.dtype.base_dtype), [], name="last_step")
    built = []

    def cond(i, step, loss):
        del loss
        # The first iteration always runs, as a run with one step per run does.
        return tf.logical_or(tf.equal(i, 0),
                             tf.logical_and(i < steps_per_run, step < last_step))

    def body(i, step, loss):
        del step, loss
        spec = build_step()
        built.append((spec, tf.compat.v1.get_default_graph()))
        # Plain graph mode adds no automatic control dependencies to a while_v2 body:
        # the outputs wait for the train_op, and the step is read after it.
        with tf.control_dependencies([spec.train_op]):
            return (i + 1, global_step.read_value(),
                    tf.cast(spec.loss, tf.float64))  # float64 holds any float loss exactly

    # The loop starts from the step the hooks read (before the run's first step); one
    # iteration at a time, as consecutive runs would.
    _, step_after_run, loss = while_v2.while_loop(
        cond, body, [tf.constant(0), step_read, tf.constant(0.0, tf.float64)],
        parallel_iterations=1, name="steps_loop")
    spec, body_graph = built[0]
    loss = tf.cast(loss, spec.loss.dtype, name="steps_loop/loss")
    train_op = tf.group(loss, step_after_run, name="steps_loop/train_op")
    graph.add_to_collection(STEP_AFTER_RUN_KEY, step_after_run)

    _rebuild_savers_outside(graph, body_graph, spec.scaffold)
    _check_scaffold(graph, spec.scaffold, steps_per_run)
    _check_hooks(graph, spec, steps_per_run)
    if _drop_loop_items_from_collections(graph, steps_per_run).get(
            tf.compat.v1.GraphKeys.TRAIN_OP):
        graph.add_to_collection(tf.compat.v1.GraphKeys.TRAIN_OP, train_op)
    # Predictions and metrics stay inside the loop; training needs none of them.
    outer_spec = EstimatorSpec(
        ModeKeys.TRAIN, loss=loss, train_op=train_op, training_hooks=spec.training_hooks,
        training_chief_hooks=spec.training_chief_hooks, scaffold=spec.scaffold)
    return TrainLoop(outer_spec, steps_per_run=steps_per_run, step_after_run=step_after_run,
                     last_step=last_step)


# ------------------------------------------------------------ loop-made parts

def _in_loop(graph, value) -> bool:
    """True for a tensor or op of a function graph (the loop body, or one inside it)."""
    value_graph = getattr(value, "graph", None)
    return isinstance(value, (tf.Tensor, tf.Operation)) and value_graph is not graph


def _loop_values(graph, value, depth=3):
    """The loop tensors and ops in `value` and the lists, tuples and dicts it holds."""
    if _in_loop(graph, value):
        return [value]
    if depth == 0:
        return []
    if isinstance(value, dict):
        value = list(value.keys()) + list(value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return [found for item in value for found in _loop_values(graph, item, depth - 1)]
    return []


def _rebuild_savers_outside(graph, body_graph, scaffold):
    """Rebuilds in the outer graph a Saver the model_fn built inside the loop.

    A Saver's save and restore ops belong with the variables, in the outer graph.
    Its variables' saveables read the variables when the Saver is built, so
    building it again outside gives the same checkpoint keys; the object graph an
    object-based saver writes (model_to_estimator) is a constant, copied outside.
    """
    savers = list(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS))
    if scaffold.saver is not None and scaffold.saver not in savers:
        savers.append(scaffold.saver)
    for saver in savers:
        if not _built_in(body_graph, saver):
            continue
        tf_saver.rebuild(saver, graph, lambda saveable: _saveable_outside(graph, saveable))


def _built_in(body_graph, saver) -> bool:
    saver_def = getattr(saver, "saver_def", None)
    if saver_def is None or not saver_def.save_tensor_name:
        var_list = tf_saver.var_list(saver) or []
        values = var_list.values() if isinstance(var_list, dict) else var_list
        return any(_saveable_tensors_in(body_graph, s) for s in values)
    try:
        body_graph.as_graph_element(saver_def.save_tensor_name)
    except (KeyError, ValueError):
        return False
    return True


def _saveable_tensors_in(body_graph, saveable) -> bool:
    # pylint: disable=protected-access
    specs = getattr(saveable, "specs", None) or []
    return any(getattr(spec._tensor, "graph", None) is body_graph for spec in specs)


def _saveable_outside(graph, saveable):
    """`saveable`, or a copy whose loop constant is made in `graph`."""
    if not getattr(saveable, "specs", None):
        return saveable  # A variable: its saveable is made when the Saver is built.
    # pylint: disable=protected-access
    loop_tensors = [spec._tensor for spec in saveable.specs
                    if isinstance(spec._tensor, tf.Tensor) and spec._tensor.graph is not graph]
    if not loop_tensors:
        return saveable
    value = tf.get_static_value(loop_tensors[0])
    if isinstance(saveable, trackable_base.NoRestoreSaveable) and value is not None:
        with graph.as_default(), tf.device("/cpu:0"):
            return trackable_base.NoRestoreSaveable(
                tensor=tf.constant(value, dtype=loop_tensors[0].dtype), name=saveable.name)
    raise ValueError(
        f"The model_fn's Saver saves {saveable.name!r} from {loop_tensors[0].name}, a tensor "
        "of the steps_per_run loop that the Saver cannot read outside it. Save variables "
        "(or use steps_per_run=1).")


def _check_scaffold(graph, scaffold, steps_per_run):
    for name in ("init_op", "ready_op", "ready_for_local_init_op", "local_init_op",
                 "summary_op", "init_feed_dict", "local_init_feed_dict"):
        found = _loop_values(graph, getattr(scaffold, name, None))
        if found:
            raise ValueError(
                f"With steps_per_run={steps_per_run} the model_fn runs inside an in-graph "
                f"loop, and its Scaffold's `{name}` refers to {found[0].name}, which exists "
                "only inside the loop and cannot run at session start. Leave it to the "
                "Scaffold's default, or use steps_per_run=1.")


def _check_hooks(graph, spec, steps_per_run):
    for kind, hooks in (("training_hooks", spec.training_hooks),
                        ("training_chief_hooks", spec.training_chief_hooks)):
        for hook in hooks:
            found = _loop_values(graph, list(getattr(hook, "__dict__", {}).values()))
            if found:
                raise ValueError(
                    f"With steps_per_run={steps_per_run} the model_fn runs inside an "
                    f"in-graph loop, and {type(hook).__name__} in its EstimatorSpec."
                    f"{kind} refers to {found[0].name}, a tensor of one loop iteration that "
                    "a session run cannot fetch. Hooks that read no model_fn tensor work "
                    "(e.g. the global step, passed to train(hooks=...)); the Estimator's own "
                    "loss logging and NaN check use the loop's last loss. Or use "
                    "steps_per_run=1.")


def _drop_loop_items_from_collections(graph, steps_per_run) -> dict:
    """Takes the loop's tensors out of the graph's collections (they cannot be fetched).

    Returns:
        {collection key: the loop items taken out of it}.
    """
    dropped = {}
    for key in graph.get_all_collection_keys():
        items = graph.get_collection_ref(key)
        loop_items = [item for item in items if _in_loop(graph, item)]
        if not loop_items:
            continue
        if key in _FATAL_COLLECTIONS:
            raise ValueError(
                f"With steps_per_run={steps_per_run} the model_fn runs inside an in-graph "
                f"loop, and it added {loop_items[0].name} to the {key!r} collection: "
                "tables, resources and queue runners made inside the loop cannot be "
                "initialised at session start. Make them outside the model_fn (in the "
                "input_fn, e.g. a lookup in Dataset.map), or use steps_per_run=1.")
        items[:] = [item for item in items if not _in_loop(graph, item)]
        dropped[key] = loop_items
    summaries = dropped.get(tf.compat.v1.GraphKeys.SUMMARIES, [])
    if summaries:
        logging.warning(
            "Summaries inside model_fn are not written with steps_per_run > 1 "
            "(steps_per_run=%d): %s. The Estimator's `loss` summary is written from the "
            "loop's last loss.", steps_per_run, ", ".join(s.op.name for s in summaries))
    if dropped:
        logging.info("Tensors of the steps_per_run loop left out of collections %s.",
                     sorted(dropped))
    return dropped
