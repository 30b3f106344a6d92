"""InMemoryEvaluatorHook: evaluations during training, from the variables in memory.

As the original: the evaluation graph is built once, in `begin()`; at each
evaluation the training session's variable values are read and assigned to the
evaluation graph's variables of the same names (through placeholders), and the
graph is evaluated in a new session as `Estimator.evaluate` would, writing its
metrics to `eval_dir(name)`. Nothing is saved: not through the training graph's
saver (whose `max_to_keep` would drop the user's own checkpoints), not to disk.

The hook reaches the Estimator through one named internal interface,
`evaluation_of(estimator)` -> `InMemoryEvaluation`: evaluate() in its two halves
(build the graph once; run it with a scaffold) and the scope both run under.
The hooks layer sits below engine/, so the interface is declared here and
engine/estimator.py registers the Estimator's implementation (the original's
`_evaluate_build_graph` and `_evaluate_run`, which subclasses may override).
"""

import dataclasses
import functools
from typing import Any, Callable, ContextManager, Dict, Iterable, Optional

import tensorflow as tf

from estimator_lib.core.model_fn import check_hooks
from estimator_lib.distribute import job_shape

logging = tf.compat.v1.logging


@dataclasses.dataclass(frozen=True)
class InMemoryEvaluation:
    """What InMemoryEvaluatorHook needs of an Estimator.

    Attributes:
        scope: () -> the context both halves run in (eval_distribute's scope).
        build: (input_fn) -> the evaluation graph, built in the default graph with no
            checkpoint to restore (its `.scaffold` is the model_fn's EVAL scaffold).
        run: (built, *, steps, hooks, name, scaffold) -> the metrics dict of one
            evaluation of `built`, written to eval_dir(name), `scaffold` replacing
            the graph's own.
    """
    scope: Callable[[], ContextManager]
    build: Callable[[Callable], Any]
    run: Callable[..., dict]


@functools.singledispatch
def evaluation_of(estimator) -> InMemoryEvaluation:
    """`estimator`'s InMemoryEvaluation (registered for Estimator by engine/estimator.py).

    Raises:
        TypeError: If `estimator` is not an Estimator.
    """
    raise TypeError("InMemoryEvaluatorHook needs a tf.estimator.Estimator to evaluate. "
                    f"Received: {type(estimator).__name__}.")


class InMemoryEvaluatorHook(tf.compat.v1.train.SessionRunHook):
    """Evaluates before the first step, every `every_n_iter` steps, and at the end.

    Limits, as the original's: one machine only (no cluster); no saveables other
    than global variables in training; no custom saver or init_fn in the EVAL
    model_fn's Scaffold. Evaluation variables absent from training keep their
    initial values.

    Examples:
        Four steps of training, evaluated in the same process before the first step,
        after step 2 and at the end:

        >>> import tempfile
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        ...     loss = tf.square(w - features["x"][0])
        ...     step = tf.compat.v1.train.get_or_create_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     return tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])).repeat()
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> hook = estimator_lib.experimental.InMemoryEvaluatorHook(
        ...     est, input_fn, steps=1, every_n_iter=2)
        >>> est = est.train(input_fn, steps=4, hooks=[hook])
        >>> sorted(estimator_lib.experimental.read_eval_metrics(est.eval_dir()))
        [0, 2, 4]
    """

    def __init__(self, estimator, input_fn: Callable, steps: Optional[int] = None,
                 hooks: Optional[Iterable] = None, name: Optional[str] = None,
                 every_n_iter: int = 100):
        """Checks the arguments.

        Args:
            estimator: The Estimator being trained (its `evaluate` contract).
            input_fn: The evaluation input_fn, as `Estimator.evaluate` takes it.
            steps: Batches per evaluation; None: until the input ends.
            hooks: SessionRunHooks run in each evaluation.
            name: The evaluation's name (`eval_<name>` directory).
            every_n_iter: Training steps between evaluations.

        Raises:
            ValueError: `every_n_iter` or `steps` not positive, or a cluster config.
        """
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        role = job_shape.role_of(estimator.config)
        if not role.single_machine:
            raise ValueError(
                "InMemoryEvaluator supports only single machine (aka Local) setting: each "
                "task would evaluate its own copy. Received a cluster of "
                f"{role.num_workers} workers and {role.num_ps} ps; use "
                "train_and_evaluate's evaluator task instead.")
        self._evaluation = evaluation_of(estimator)
        self._input_fn = input_fn
        self._steps = steps
        self._hooks = list(check_hooks(hooks, "hooks",
                                       lead="Hooks must be a SessionRunHook"))
        self._name = name
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_steps=every_n_iter)
        self._graph = None
        self._built = None
        self._assigns: Dict[str, tf.Operation] = {}
        self._placeholders: Dict[str, tf.Tensor] = {}
        self._train_variables: Dict[str, tf.Variable] = {}
        self._iterations = 0

    def begin(self):
        """Builds the evaluation graph, and an assignment per global variable."""
        self._timer.reset()
        self._iterations = 0
        self._graph = tf.Graph()
        with self._graph.as_default(), self._evaluation.scope():
            # No checkpoint: the variables are initialised, then copied over.
            built = self._evaluation.build(self._input_fn)
            if built.scaffold.saver is not None:
                raise ValueError("InMemoryEvaluator does not support custom saver (the "
                                 "model_fn's EVAL Scaffold sets one).")
            if built.scaffold.init_fn is not None:
                raise ValueError("InMemoryEvaluator does not support custom init_fn (the "
                                 "model_fn's EVAL Scaffold sets one).")
            self._built = built
            self._placeholders, self._assigns = {}, {}
            for variable in tf.compat.v1.global_variables():
                placeholder = tf.compat.v1.placeholder(variable.dtype.base_dtype,
                                                       variable.shape)
                self._placeholders[variable.name] = placeholder
                self._assigns[variable.name] = tf.compat.v1.assign(variable, placeholder)

    def after_create_session(self, session, coord):
        """Pairs the training variables with the evaluation's; evaluates before step 1."""
        del coord
        if tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS):
            raise ValueError("InMemoryEvaluator does not support saveables other than "
                             "global variables.")
        self._train_variables = {
            variable.name: variable for variable in tf.compat.v1.global_variables()
            if variable.name in self._assigns}
        self._evaluate(session)

    def _evaluate(self, train_session):
        values = train_session.run(self._train_variables)
        feed = {self._placeholders[name]: value for name, value in values.items()}
        assigns = [self._assigns[name] for name in values]

        def copy_variables(scaffold, session):
            del scaffold
            session.run(assigns, feed_dict=feed)

        # A new Scaffold per evaluation, as the original: the graph's own init and
        # local-init ops (found in their collections after the first), this init_fn.
        scaffold = tf.compat.v1.train.Scaffold(init_fn=copy_variables,
                                               copy_from_scaffold=self._built.scaffold)
        with self._graph.as_default(), self._evaluation.scope():
            self._evaluation.run(self._built, steps=self._steps, hooks=self._hooks,
                                 name=self._name, scaffold=scaffold)
        self._timer.update_last_triggered_step(self._iterations)

    def after_run(self, run_context, run_values):
        """Counts the training step; evaluates every `every_n_iter` steps.

        Args:
            run_context: The training loop's `SessionRunContext`.
            run_values: The step's `SessionRunValues` (unused).
        """
        self._iterations += 1
        if self._timer.should_trigger_for_step(self._iterations):
            self._evaluate(run_context.session)

    def end(self, session):
        """Evaluates once more, on the variables training ended with.

        Args:
            session: The training session whose variables are copied in.
        """
        self._evaluate(session)
