"""train_and_evaluate, and every name of the original's `training` module.

compat.install() puts this module itself at `tensorflow_estimator.python.estimator.
training` (legacy/original_tree.py), so a program or test that replaces a name here
(`training._TrainingExecutor`) is obeyed by train_and_evaluate, which reads it at
each call. The specs live in engine/train_specs.py, the executor that runs each task's
part in engine/training_executor.py.
"""

import tensorflow as tf

from estimator_lib.distribute import job_shape
from estimator_lib.distribute import parameter_servers
# The original's names of this module, from where they live.
from estimator_lib.engine.train_specs import (  # pylint: disable=unused-import
    EvalSpec, TrainSpec, _assert_eval_spec, _validate_exporters, _validate_hooks,
    _validate_input_fn, _validate_saving_listeners)
from estimator_lib.engine.training_executor import (  # pylint: disable=unused-import
    _DELAY_SECS_PER_WORKER, _ENVIRONMENT_GOOGLE_VALUE, _ENVIRONMENT_KEY, _MAX_DELAY_SECS,
    _TF_CONFIG_ENV, _TRAINER_JOBS, _ContinuousEvalListener, _EvalResult, _EvalStatus,
    _NewCheckpointListenerForEvaluate, _StopAtSecsHook, _TrainingExecutor, _is_google_env)

logging = tf.compat.v1.logging


def train_and_evaluate(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains and evaluates: locally, or in the role TF_CONFIG gives this task.

    Locally (no cluster), trains with `train_spec` and evaluates after checkpoint
    saves (at most every `eval_spec.throttle_secs`) and once at the end, running the
    exporters after each evaluation. In a cluster, each task plays its part: the
    chief and workers train, parameter servers serve variables, and the `evaluator`
    evaluates each new checkpoint until `train_spec.max_steps` is reached.

    In a cluster it differs from the original on purpose (docs/estimator.md):

    - Deliberate difference 8: a chief-only hook's step read no longer hangs workers.
    - Deliberate difference 11: distributed sessions close in the background.
    - Deliberate difference 12: start-up waits are bounded (docs/multi_worker.md).
    - Deliberate difference 26: a `ps` task ends once the chief and workers finish.

    Args:
        estimator: The `Estimator` to train and evaluate.
        train_spec: A `TrainSpec`: the training input, step limit and hooks.
        eval_spec: An `EvalSpec`: the evaluation input, steps, exporters and cadence.

    Returns:
        Locally, the pair `(metrics, export_results)` of the last evaluation: its
        metrics dict and the list of what each exporter returned; `(None, None)` when
        training did not run (model_dir's checkpoint had reached `max_steps`), as the
        original. None in the roles of a distributed job.

    Raises:
        TypeError: If an argument is not an `Estimator`, `TrainSpec` or `EvalSpec`.
        ValueError: If the config's cluster gives this task no known role.

    Examples:
        Locally (no TF_CONFIG): trains to step 2, then evaluates one batch:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [1, 1])
        ...     loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        ...         loss, global_step=tf.compat.v1.train.get_global_step())
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     x = np.array([[1.0], [2.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x)).repeat().batch(2)
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> metrics, exports = estimator_lib.train_and_evaluate(
        ...     est, estimator_lib.TrainSpec(input_fn, max_steps=2),
        ...     estimator_lib.EvalSpec(input_fn, steps=1, throttle_secs=0))
        >>> int(metrics["global_step"]), sorted(metrics), exports
        (2, ['global_step', 'loss'], [])
    """
    _assert_eval_spec(eval_spec)  # The original checked the EvalSpec first.
    executor = _TrainingExecutor(estimator=estimator, train_spec=train_spec,
                                 eval_spec=eval_spec)
    config = estimator.config
    logging.info("Not using Distribute Coordinator.")  # As the original, which had one.
    role = job_shape.role_of(config)
    part = role.part_in_train_and_evaluate()
    if part == job_shape.TRAINER and role.mode == job_shape.MULTI_WORKER:
        # The original's distribute coordinator: each task trains under the strategy,
        # which connects the cluster itself (no server of ours, no start-up delay).
        estimator.train(train_spec.input_fn, max_steps=train_spec.max_steps,
                        hooks=list(train_spec.hooks),
                        saving_listeners=list(train_spec.saving_listeners))
        return None
    result = executor.run()
    if part == job_shape.PARAMETER_SERVER_TRAINER:
        parameter_servers.signal_done(config)  # The ps tasks end (parameter_servers.py).
    return result
