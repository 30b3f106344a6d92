"""Estimators side by side in one process's threads (issue 35, part 2).

Each case runs calls at the same time in threads and checks they give the numbers the
same calls give one after another, with each model_dir holding its own checkpoints
only. What cannot run side by side is refused with a clear error: two trainings of one
model_dir (the model_dir lock). train() off the main thread installs no signal handler
(Python allows it on the main thread only): docs/architecture.md, process-wide state.
"""

import os
import signal
import tempfile
import threading

import numpy as np
import tensorflow as tf
import tf_keras

import estimator_lib as el
from estimator_lib.training import model_dir_lock

_TIMEOUT = 300
_STEPS = 8


def _data(seed, n=32, width=4):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, width).astype(np.float32)
    y = (x[:, 0] + x[:, 1] * seed > 0).astype(np.int32)
    return x, y


def _input_fn(seed, *, repeat, large=False):
    # large: 1 MiB of features, fed rather than frozen (the shared swaps of patch 1).
    x, y = _data(seed, 4096, 64) if large else _data(seed)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(8)
        return dataset.repeat() if repeat else dataset
    return input_fn


def _model_fn(learning_rate):
    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 2)
        predictions = {"logits": logits, "classes": tf.argmax(logits, 1)}
        if mode == el.ModeKeys.PREDICT:
            return el.EstimatorSpec(mode, predictions=predictions)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdagradOptimizer(learning_rate).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions["classes"])}
        return el.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)
    return model_fn


def _estimator(model_dir, learning_rate=0.1):
    return el.Estimator(_model_fn(learning_rate), config=el.RunConfig(
        model_dir=model_dir, tf_random_seed=7))


def _in_threads(*calls):
    """Runs each call in its own thread, all started together; returns their results."""
    start = threading.Barrier(len(calls), timeout=_TIMEOUT)
    results, errors = [None] * len(calls), [None] * len(calls)

    def run(index):
        try:
            start.wait()
            results[index] = calls[index]()
        except BaseException as error:  # pylint: disable=broad-except
            errors[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(_TIMEOUT)
    for error in errors:
        if error is not None:
            raise error
    return results


def _variables(model_dir):
    reader = tf.train.load_checkpoint(model_dir)
    return {name: reader.get_tensor(name) for name, _ in tf.train.list_variables(model_dir)}


class SideBySideTest(tf.test.TestCase):

    def _dir(self):
        return tempfile.mkdtemp(dir=self.get_temp_dir())

    def assertSameVariables(self, model_dir, expected_dir):
        actual, expected = _variables(model_dir), _variables(expected_dir)
        self.assertEqual(sorted(actual), sorted(expected))
        for name in expected:
            if isinstance(expected[name], bytes):  # The object graph of a Keras checkpoint.
                self.assertEqual(actual[name], expected[name], name)
            else:
                self.assertAllClose(actual[name], expected[name], rtol=1e-6, atol=1e-7,
                                    msg=name)

    def assertOwnCheckpointsOnly(self, model_dir):
        state = tf.train.get_checkpoint_state(model_dir)
        for path in state.all_model_checkpoint_paths:
            self.assertEqual(os.path.dirname(os.path.abspath(path)),
                             os.path.abspath(model_dir))

    def test_two_estimators_train_at_once_on_their_own_model_dirs(self):
        sequential = [self._dir(), self._dir()]
        side_by_side = [self._dir(), self._dir()]
        rates = (0.1, 0.3)
        for model_dir, rate, seed in zip(sequential, rates, (1, 2)):
            _estimator(model_dir, rate).train(_input_fn(seed, repeat=True, large=True),
                                              steps=_STEPS)
        handlers = []

        class SignalsHook(tf.compat.v1.train.SessionRunHook):
            def after_create_session(self, session, coord):
                del session, coord
                handlers.append(signal.getsignal(signal.SIGTERM))

        handler = signal.getsignal(signal.SIGTERM)
        _in_threads(*[
            (lambda d=model_dir, r=rate, s=seed: _estimator(d, r).train(
                _input_fn(s, repeat=True, large=True), steps=_STEPS, hooks=[SignalsHook()]))
            for model_dir, rate, seed in zip(side_by_side, rates, (1, 2))])
        # Off the main thread train() installs no handler (Python allows none there).
        self.assertEqual(handlers, [handler, handler])
        for model_dir, expected in zip(side_by_side, sequential):
            self.assertSameVariables(model_dir, expected)
            self.assertOwnCheckpointsOnly(model_dir)
        # The two models differ: a checkpoint crossed over would show.
        self.assertNotAllClose(_variables(side_by_side[0])["dense/kernel"],
                               _variables(side_by_side[1])["dense/kernel"])

    def test_one_estimator_predicts_from_eight_threads(self):
        estimator = _estimator(self._dir())
        estimator.train(_input_fn(1, repeat=True), steps=_STEPS)

        def predict(seed):
            return np.stack([p["logits"] for p in estimator.predict(
                _input_fn(seed, repeat=False))])

        expected = [predict(seed) for seed in range(8)]
        actual = _in_threads(*[lambda s=seed: predict(s) for seed in range(8)])
        for seed in range(8):
            self.assertAllClose(actual[seed], expected[seed], rtol=1e-6, atol=1e-7)

    def test_evaluate_while_another_thread_trains(self):
        evaluated, trained, expected_dir = self._dir(), self._dir(), self._dir()
        _estimator(evaluated).train(_input_fn(1, repeat=True), steps=_STEPS)
        checkpoint = tf.train.latest_checkpoint(evaluated)
        expected = _estimator(evaluated).evaluate(_input_fn(3, repeat=False),
                                                  checkpoint_path=checkpoint)
        _estimator(expected_dir, 0.3).train(_input_fn(2, repeat=True), steps=_STEPS)

        def evaluate():
            return [_estimator(evaluated).evaluate(_input_fn(3, repeat=False),
                                                   checkpoint_path=checkpoint)
                    for _ in range(2)]

        metrics, _, _ = _in_threads(
            evaluate,
            # Another model_dir, and the evaluated one's own training going on.
            lambda: _estimator(trained, 0.3).train(_input_fn(2, repeat=True), steps=_STEPS),
            lambda: _estimator(evaluated).train(_input_fn(1, repeat=True), steps=_STEPS))
        for result in metrics:
            self.assertAllClose(result, expected, rtol=1e-6, atol=1e-7)
        self.assertSameVariables(trained, expected_dir)
        self.assertEqual(_variables(evaluated)["global_step"], 2 * _STEPS)
        for model_dir in (evaluated, trained):
            self.assertOwnCheckpointsOnly(model_dir)

    def test_a_canned_estimator_and_model_to_estimator_together(self):
        def canned(model_dir):
            column = tf.feature_column.numeric_column("x", shape=(4,))
            estimator = el.LinearClassifier([column], config=el.RunConfig(
                model_dir=model_dir, tf_random_seed=7))
            estimator.train(_input_fn(1, repeat=True), steps=_STEPS)

        def keras(model_dir):
            model = tf_keras.Sequential([tf_keras.layers.Dense(
                2, kernel_initializer="ones", input_shape=(4,), name="dense")])
            model.compile(tf_keras.optimizers.legacy.SGD(0.1),
                          tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            estimator = el.model_to_estimator(keras_model=model, config=el.RunConfig(
                model_dir=model_dir, tf_random_seed=7))
            input_fn = _input_fn(2, repeat=True)
            estimator.train(lambda: input_fn().map(
                lambda features, y: ({model.input_names[0]: features["x"]}, y)),
                steps=_STEPS)

        expected = [self._dir(), self._dir()]
        canned(expected[0])
        keras(expected[1])
        actual = [self._dir(), self._dir()]
        _in_threads(lambda: canned(actual[0]), lambda: keras(actual[1]))
        for model_dir, expected_dir in zip(actual, expected):
            self.assertSameVariables(model_dir, expected_dir)
            self.assertOwnCheckpointsOnly(model_dir)

    def test_two_trainings_of_one_model_dir_at_once_are_refused(self):
        model_dir = self._dir()
        inside, attempted = threading.Event(), threading.Event()

        class HoldHook(tf.compat.v1.train.SessionRunHook):
            """Keeps the first training inside its session until the second has tried."""

            def after_create_session(self, session, coord):
                del session, coord
                inside.set()
                attempted.wait(_TIMEOUT)

        def first():
            _estimator(model_dir).train(_input_fn(1, repeat=True), steps=_STEPS,
                                        hooks=[HoldHook()])

        def second():
            inside.wait(_TIMEOUT)
            try:
                _estimator(model_dir).train(_input_fn(1, repeat=True), steps=_STEPS)
            finally:
                attempted.set()

        with self.assertRaisesRegex(model_dir_lock.ModelDirInUseError, "model_dir"):
            _in_threads(first, second)
        self.assertEqual(_variables(model_dir)["global_step"], _STEPS)


if __name__ == "__main__":
    tf.test.main()
