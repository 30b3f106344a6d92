"""HookCallback: a SessionRunHook running as a Keras callback under `model.fit`.

So a team can move its timing and logging hooks to Keras without rewriting
them. The hook's calls map onto fit's training callbacks:

    begin, after_create_session   -> on_train_begin
    before_run                    -> on_train_batch_begin
    after_run                     -> on_train_batch_end
    end                           -> on_train_end

`run_context.request_stop()` sets `model.stop_training`, which fit honours
after the batch. What fit cannot give a hook is a tf.compat.v1 Session: there
is no graph to fetch from or feed. A hook whose `before_run` asks for graph
tensors, ops or feeds, or that calls `session.run`, fails with a ValueError
saying so; eager values (variables, eager tensors) are read and handed back
in `run_values.results` as the session would have.
"""

import tensorflow as tf
import tf_keras

_train = tf.compat.v1.train

_ALTERNATIVE = (
    "Keras fit has no tf.compat.v1 Session, so graph tensors cannot be fetched. Read "
    "values in a Keras callback instead (the `logs` dict of on_train_batch_end holds the "
    "loss and metrics; `self.model` the weights), or keep this hook on an estimator_lib "
    "Estimator.")


class _NoSession:
    """Stands in for `run_context.session` and the session passed to the hook."""

    def __init__(self, hook_name: str):
        self._hook_name = hook_name
        self.graph = None

    def run(self, fetches, *args, **kwargs):
        del args, kwargs
        raise ValueError(
            f"Hook {self._hook_name} called session.run({fetches!r}) under Keras fit. "
            f"{_ALTERNATIVE}")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)  # copy, pickle and hasattr probes stay quiet.
        hook_name = self.__dict__.get("_hook_name", "?")
        raise ValueError(
            f"Hook {hook_name} used session.{name} under Keras fit. {_ALTERNATIVE}")


def _is_eager_variable(variable) -> bool:
    try:
        variable.numpy()
    except (NotImplementedError, AttributeError, ValueError, TypeError):
        return False
    return True


class HookCallback(tf_keras.callbacks.Callback):
    """Runs a `tf.compat.v1.train.SessionRunHook` as a Keras callback during `fit`.

    Examples:
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import tf_keras
        >>> class CountingHook(tf.compat.v1.train.SessionRunHook):
        ...     runs = 0
        ...     def after_run(self, run_context, run_values):
        ...         CountingHook.runs += 1
        >>> model = tf_keras.Sequential([tf_keras.layers.Dense(1, input_shape=(2,))])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, epochs=1,
        ...               verbose=0, callbacks=[HookCallback(CountingHook())])
        >>> CountingHook.runs
        2
    """

    def __init__(self, hook: _train.SessionRunHook):
        """Wraps `hook`.

        Args:
            hook: A SessionRunHook (a `tf.estimator.SessionRunHook` subclass).

        Raises:
            ValueError: If `hook` is not a SessionRunHook.
        """
        super().__init__()
        if not isinstance(hook, _train.SessionRunHook):
            raise ValueError(
                "`hook` must be a tf.compat.v1.train.SessionRunHook (tf.estimator."
                f"SessionRunHook). Received: {type(hook).__name__}.")
        self.hook = hook
        self._name = type(hook).__name__
        self._session = _NoSession(self._name)
        self._run_context = None
        self._fetches = None
        # begin() may add ops (built-in hooks read the global step); they land in a
        # private graph, where a later fetch of them is reported, not silently wrong.
        self._graph = None

    def on_train_begin(self, logs=None):
        """Calls the hook's `begin` (in a private graph) and `after_create_session`.

        Args:
            logs: Keras' logs (unused).

        Raises:
            ValueError: If the hook's `begin` needs the Estimator's graph (naming the
                alternative).
        """
        del logs
        self._graph = tf.Graph()
        with self._graph.as_default():
            try:
                self.hook.begin()
            except (RuntimeError, ValueError, TypeError, AttributeError) as error:
                raise ValueError(
                    f"Hook {self._name}.begin() cannot run under Keras fit: it needs the "
                    f"Estimator's graph ({type(error).__name__}: {error}). "
                    f"{_ALTERNATIVE}") from error
        self.hook.after_create_session(self._session, None)

    def on_train_batch_begin(self, batch, logs=None):
        """Calls the hook's `before_run` and checks that fit can give what it asks for.

        Args:
            batch: The batch index (unused).
            logs: Keras' logs (unused).

        Raises:
            ValueError: If `before_run` returns something other than None or
                `SessionRunArgs`, or asks for feeds, options or graph tensors fit cannot
                provide.
        """
        del batch, logs
        original_args = _train.SessionRunArgs(fetches=None)
        self._run_context = _train.SessionRunContext(original_args, self._session)
        request = self.hook.before_run(self._run_context)
        self._fetches = self._check_request(request)

    def on_train_batch_end(self, batch, logs=None):
        """Calls the hook's `after_run` with the values it asked for; stops `fit` on its request.

        Args:
            batch: The batch index (unused).
            logs: Keras' logs (unused).
        """
        del batch, logs
        if self._run_context is None:
            return
        results = None if self._fetches is None else tf.nest.map_structure(
            _value_of, self._fetches)
        self.hook.after_run(self._run_context,
                            _train.SessionRunValues(results=results, options=None,
                                                    run_metadata=None))
        if self._run_context.stop_requested:
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        """Calls the hook's `end`.

        Args:
            logs: Keras' logs (unused).
        """
        del logs
        self.hook.end(self._session)

    def _check_request(self, request):
        """The fetches of `before_run`'s SessionRunArgs, if fit can provide them."""
        if request is None:
            return None
        if not isinstance(request, _train.SessionRunArgs):
            raise ValueError(
                f"Hook {self._name}.before_run must return None or SessionRunArgs. "
                f"Received: {type(request).__name__}.")
        if request.feed_dict:
            raise ValueError(
                f"Hook {self._name}.before_run asks to feed {list(request.feed_dict)!r}; "
                f"fit runs no feedable graph. {_ALTERNATIVE}")
        if request.options is not None:
            raise ValueError(
                f"Hook {self._name}.before_run passes RunOptions, which fit cannot apply; "
                "profile fit with tf.profiler or the TensorBoard callback's `profile_batch`.")
        if request.fetches is None:
            return None
        for fetch in tf.nest.flatten(request.fetches):
            if not _fetchable(fetch):
                raise ValueError(
                    f"Hook {self._name}.before_run requests fetches of graph tensors "
                    f"({fetch!r}), which Keras fit cannot provide. {_ALTERNATIVE}")
        return request.fetches


def _fetchable(value) -> bool:
    """True for the values fit can hand back: eager tensors and eager variables."""
    if isinstance(value, tf.Variable):
        return _is_eager_variable(value)
    if isinstance(value, tf.Tensor):
        return not tf.is_symbolic_tensor(value)
    return False


def _value_of(value):
    return value.numpy()
