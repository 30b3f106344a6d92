"""TPUEstimator with use_tpu=False: params, TPUEstimatorSpec, hooks, logs, errors.

Expected values were observed on the original (TF 2.15.1 + tensorflow-estimator
2.15.0) running the same calls on a CPU.
"""

import os

import numpy as np
import tensorflow as tf

import estimator_lib
from estimator_lib import tpu
from estimator_lib.tpu import tpu_estimator as tpu_estimator_lib

_X = np.arange(48, dtype=np.float32).reshape(24, 2) / 48.0
_Y = (np.arange(24) % 2).astype(np.int32)


def _input_fn(params):
    batch_size = params.get("batch_size", 4)
    return tf.data.Dataset.from_tensor_slices(({"x": _X}, _Y)).batch(batch_size)


def _train_input_fn(params):
    return _input_fn(params).repeat()


def _make_model_fn(calls=None, eval_tensors_as_dict=False, host_call_dir=None,
                   scaffold_fn=None, plain_spec=False):
    """A dense layer returning a TPUEstimatorSpec; records (mode, params) in `calls`."""

    def model_fn(features, labels, mode, params):
        if calls is not None:
            calls.append((mode, dict(params)))
        logits = tf.compat.v1.layers.dense(features["x"], 2, name="dense")
        predictions = {"logits": logits, "classes": tf.argmax(logits, 1)}
        if mode == estimator_lib.ModeKeys.PREDICT:
            if plain_spec:
                return estimator_lib.EstimatorSpec(mode, predictions=predictions)
            return tpu.TPUEstimatorSpec(mode, predictions=predictions, scaffold_fn=scaffold_fn)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        if plain_spec:
            return estimator_lib.EstimatorSpec(
                mode, loss=loss, train_op=train_op, eval_metric_ops={
                    "accuracy": tf.compat.v1.metrics.accuracy(labels, predictions["classes"])})

        def metric_fn(labels, logits):
            return {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1)),
                    "mean_logit": tf.compat.v1.metrics.mean(logits)}

        eval_metrics = (metric_fn, {"labels": labels, "logits": logits}
                        if eval_tensors_as_dict else [labels, logits])
        host_call = None
        if host_call_dir:
            def host_fn(step, loss):
                with tf.compat.v2.summary.create_file_writer(host_call_dir).as_default():
                    with tf.compat.v2.summary.record_if(True):
                        tf.compat.v2.summary.scalar("host_loss", loss[0], step=step[0])
                        return tf.compat.v1.summary.all_v2_summary_ops()

            step = tf.reshape(tf.compat.v1.train.get_global_step(), [1])
            host_call = (host_fn, [step, tf.reshape(loss, [1])])
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                    eval_metrics=eval_metrics, host_call=host_call,
                                    scaffold_fn=scaffold_fn)

    return model_fn


def _serving_input_receiver_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
    return estimator_lib.export.ServingInputReceiver({"x": x}, {"x": x})


def _events(directory):
    """[(step, tag)] of the event files directly in `directory`."""
    found = []
    for name in sorted(tf.io.gfile.listdir(directory)):
        if name.startswith("events.out.tfevents"):
            for event in tf.compat.v1.train.summary_iterator(os.path.join(directory, name)):
                found.extend((event.step, v.tag) for v in event.summary.value)
    return found


class _Base(tf.test.TestCase):

    def _estimator(self, model_fn=None, *, tpu_config=None, use_tpu=False, params=None,
                   batch_sizes=(4, 6, 8), **config_kwargs):
        config_kwargs.setdefault("model_dir", self.get_temp_dir())
        config = tpu.RunConfig(tpu_config=tpu_config or tpu.TPUConfig(), **config_kwargs)
        train, eval_, predict = batch_sizes
        return tpu.TPUEstimator(
            model_fn=model_fn or _make_model_fn(), config=config, params=params,
            use_tpu=use_tpu, train_batch_size=train, eval_batch_size=eval_,
            predict_batch_size=predict)


class ParamsTest(_Base):

    def test_batch_size_and_use_tpu_per_mode(self):
        calls, input_calls = [], []

        def input_fn(params, mode):
            input_calls.append((mode, dict(params)))
            return (_train_input_fn if mode == "train" else _input_fn)(params)

        est = self._estimator(_make_model_fn(calls), params={"lr": 1})
        est.train(input_fn, max_steps=2)
        est.evaluate(input_fn)
        predictions = list(est.predict(input_fn))
        est.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                               _serving_input_receiver_fn)
        # As the original on CPU: the input_fn gets the mode's global batch size (no
        # use_tpu, no context); the model_fn also use_tpu=False; export no batch size,
        # once per MetaGraph (serve; serve, tpu: tpu_inference_test.py).
        self.assertEqual([("train", {"lr": 1, "batch_size": 4}),
                          ("eval", {"lr": 1, "batch_size": 6}),
                          ("infer", {"lr": 1, "batch_size": 8})], input_calls)
        self.assertEqual([("train", {"lr": 1, "batch_size": 4, "use_tpu": False}),
                          ("eval", {"lr": 1, "batch_size": 6, "use_tpu": False}),
                          ("infer", {"lr": 1, "batch_size": 8, "use_tpu": False}),
                          ("infer", {"lr": 1, "use_tpu": False}),
                          ("infer", {"lr": 1, "use_tpu": False})], calls)
        self.assertLen(predictions, 24)
        self.assertEqual({"logits", "classes"}, set(predictions[0]))

    def test_no_batch_size_when_none(self):
        calls = []
        est = self._estimator(_make_model_fn(calls), batch_sizes=(None, None, None))
        est.train(_train_input_fn, max_steps=1)
        self.assertEqual([("train", {"use_tpu": False})], calls)

    def test_params_argument_required(self):
        est = self._estimator()
        with self.assertRaisesRegex(ValueError, r"does not include params argument, required "
                                    r"by TPUEstimator to pass batch size as params\[\"batch_size"):
            est.train(lambda: _train_input_fn({}), max_steps=1)

        def model_fn(features, labels, mode):
            del features, labels, mode

        est = self._estimator(model_fn)
        with self.assertRaisesRegex(ValueError, "model_fn .* does not include params argument"):
            est.train(_train_input_fn, max_steps=1)

    def test_reserved_keys(self):
        for key in ("batch_size", "context"):
            with self.assertRaisesRegex(ValueError, "are reserved keys but existed in params"):
                self._estimator(params={key: 1})
        self._estimator(params={"use_tpu": True})  # Not reserved, as in the original.


class SpecTest(_Base):

    def test_eval_metrics_list_or_dict(self):
        for as_dict in (False, True):
            est = self._estimator(_make_model_fn(eval_tensors_as_dict=as_dict),
                                  model_dir=os.path.join(self.get_temp_dir(), str(as_dict)))
            est.train(_train_input_fn, max_steps=3)
            result = est.evaluate(_input_fn, steps=2)
            self.assertEqual({"accuracy", "mean_logit", "loss", "global_step"}, set(result))
            self.assertEqual(3, result["global_step"])
            self.assertEqual(np.float32, result["accuracy"].dtype)

    def test_scaffold_fn_initialises_from_checkpoint(self):
        init_dir = os.path.join(self.get_temp_dir(), "init")
        kernel = np.full((2, 2), 7.0, np.float32)
        with tf.Graph().as_default():
            tf.compat.v1.get_variable("pretrained/kernel", initializer=kernel)
            saver = tf.compat.v1.train.Saver()
            with tf.compat.v1.Session() as session:
                session.run(tf.compat.v1.global_variables_initializer())
                path = saver.save(session, os.path.join(init_dir, "model.ckpt"))
        scaffolds = []

        def scaffold_fn():
            tf.compat.v1.train.init_from_checkpoint(path, {"pretrained/kernel": "dense/kernel"})
            scaffolds.append(tf.compat.v1.train.Scaffold())
            return scaffolds[-1]

        model_dir = os.path.join(self.get_temp_dir(), "model")
        est = self._estimator(_make_model_fn(scaffold_fn=scaffold_fn), model_dir=model_dir)
        est.train(_train_input_fn, max_steps=1, hooks=[_ScaffoldCheckHook(scaffolds)])
        step0 = tf.train.load_checkpoint(os.path.join(model_dir, "model.ckpt-0"))
        self.assertAllEqual(kernel, step0.get_tensor("dense/kernel"))
        self.assertLen(scaffolds, 1)

    def test_host_call_runs_every_step_and_writes_summaries(self):
        host_dir = os.path.join(self.get_temp_dir(), "host")
        est = self._estimator(_make_model_fn(host_call_dir=host_dir))
        est.train(_train_input_fn, max_steps=4)
        events = _events(host_dir)
        self.assertEqual(["host_loss"] * 4, [tag for _, tag in events])
        # The step is read unordered with the train_op's increment (as in the original):
        # run k writes k or k + 1, so two runs may write the same step ([0, 2, 3, 3]).
        steps = [step for step, _ in events]
        for run, step in enumerate(steps):
            self.assertIn(step, (run, run + 1), steps)

    def test_plain_estimator_spec_is_used_as_is(self):
        est = self._estimator(_make_model_fn(plain_spec=True))
        est.train(_train_input_fn, max_steps=2)
        self.assertEqual({"accuracy", "loss", "global_step"}, set(est.evaluate(_input_fn)))
        self.assertLen(list(est.predict(_input_fn)), 24)

    def test_spec_validation(self):
        loss = tf.constant(1.0)
        with self.assertRaisesRegex(ValueError, "eval_metrics should be tuple or list"):
            tpu.TPUEstimatorSpec("eval", loss=loss, eval_metrics={"a": 1})
        with self.assertRaisesRegex(ValueError, "eval_metrics should have two elements"):
            tpu.TPUEstimatorSpec("eval", loss=loss, eval_metrics=(lambda: 1,))
        with self.assertRaisesRegex(TypeError, r"host_call\[0\] should be callable"):
            tpu.TPUEstimatorSpec("train", loss=loss, host_call=(1, []))
        with self.assertRaisesRegex(ValueError, r"eval_metrics\[1\] should be tuple or list, "
                                    "or dict"):
            tpu.TPUEstimatorSpec("eval", loss=loss, eval_metrics=(lambda x: x, loss))
        with self.assertRaisesRegex(RuntimeError, "length of tensors 2 does not match method "
                                    "args of the function, which takes 1"):
            tpu.TPUEstimatorSpec("eval", loss=loss, eval_metrics=(lambda x: x, [loss, loss]))
        with self.assertRaisesRegex(TypeError, "All hooks must be SessionRunHook instances"):
            tpu.TPUEstimatorSpec("train", loss=loss, training_hooks=[1])

    def test_as_estimator_spec(self):
        with tf.Graph().as_default():
            loss = tf.constant(2.0)
            scaffold = tf.compat.v1.train.Scaffold()
            spec = tpu.TPUEstimatorSpec(
                "eval", loss=loss, scaffold_fn=lambda: scaffold,
                eval_metrics=(lambda v: {"m": tf.compat.v1.metrics.mean(v)}, [loss]),
                host_call=(lambda v: [tf.identity(v)], [loss])).as_estimator_spec()
            self.assertIsInstance(spec, estimator_lib.EstimatorSpec)
            self.assertIs(scaffold, spec.scaffold)
            self.assertEqual(["m"], list(spec.eval_metric_ops))
            self.assertLen(spec.evaluation_hooks, 1)
            self.assertLen(spec.training_hooks, 1)
            self.assertLen(spec.prediction_hooks, 1)


class _ScaffoldCheckHook(tf.compat.v1.train.SessionRunHook):
    """Fails unless the session was created with the scaffold the scaffold_fn returned."""

    def __init__(self, scaffolds):
        self._scaffolds = scaffolds

    def begin(self):
        assert self._scaffolds, "scaffold_fn was not called before the session"


class TrainingTest(_Base):

    def test_one_step_per_run_and_step_rate_logs(self):
        model_dir = self.get_temp_dir()
        est = self._estimator(
            tpu_config=tpu.TPUConfig(iterations_per_loop=2), log_step_count_steps=4,
            save_checkpoints_steps=3, save_summary_steps=1)
        self.assertIsNone(est.config.log_step_count_steps)
        with self.assertLogs("tensorflow", "INFO") as logs:
            est.train(_train_input_fn, max_steps=6)
        messages = [r.getMessage() for r in logs.records]
        # iterations_per_loop does not group steps on CPU: checkpoints at 0, 3, 6.
        self.assertEqual(6, est.get_variable_value("global_step"))
        self.assertEqual(
            ["model.ckpt-0.index", "model.ckpt-3.index", "model.ckpt-6.index"],
            sorted(f for f in os.listdir(model_dir) if f.endswith(".index")))
        # Rates every ceil(4 / 2) = 2 steps (at 3 and 5, as the original), no `loss = ..`.
        self.assertIn("Running train on CPU/GPU", messages)
        self.assertFalse([m for m in messages if m.startswith("loss = ")])
        self.assertLen([m for m in messages if m.startswith("global_step/sec: ")], 2)
        self.assertLen([m for m in messages if m.startswith("examples/sec: ")], 2)
        rates = [e for e in _events(model_dir) if e[1].endswith("/sec")]
        self.assertEqual([(3, "global_step/sec"), (3, "examples/sec"), (5, "global_step/sec"),
                          (5, "examples/sec")], rates)
        self.assertIn((6, "loss"), _events(model_dir))

    def test_iterations_per_loop_as_duration_logs_by_time(self):
        est = self._estimator(tpu_config=tpu.TPUConfig(iterations_per_loop="1h"),
                              log_step_count_steps=1)
        with self.assertLogs("tensorflow", "INFO") as logs:
            est.train(_train_input_fn, max_steps=3)
        self.assertFalse([r for r in logs.records if "/sec: " in r.getMessage()])

    def test_rates_without_batch_size(self):
        # The original raised TypeError (None * steps/sec) here; only steps/sec is reported.
        est = self._estimator(log_step_count_steps=1, batch_sizes=(None, None, None),
                              tpu_config=tpu.TPUConfig(iterations_per_loop=1))
        with self.assertLogs("tensorflow", "INFO") as logs:
            est.train(_train_input_fn, max_steps=3)
        messages = [r.getMessage() for r in logs.records]
        self.assertTrue([m for m in messages if m.startswith("global_step/sec: ")])
        self.assertFalse([m for m in messages if m.startswith("examples/sec: ")])

    def test_warnings_at_construction(self):
        with self.assertLogs("tensorflow", "INFO") as logs:
            self._estimator(tpu_config=tpu.TPUConfig(num_shards=1))
        messages = [r.getMessage() for r in logs.records]
        self.assertIn("eval_on_tpu ignored because use_tpu is False.", messages)
        self.assertIn("_TPUContext: eval_on_tpu True", messages)
        self.assertTrue([m for m in messages if "num_shards==1 is an unsupported" in m])


class TrainAndEvaluateTest(_Base):

    def test_train_and_evaluate(self):
        est = self._estimator(save_checkpoints_steps=2)
        metrics, _ = estimator_lib.train_and_evaluate(
            est, estimator_lib.TrainSpec(_train_input_fn, max_steps=4),
            estimator_lib.EvalSpec(_input_fn, steps=2, throttle_secs=0))
        self.assertEqual(4, metrics["global_step"])
        self.assertIn("mean_logit", metrics)


class StepsPerRunTest(_Base):

    def test_steps_per_run_keeps_the_batch_size(self):
        # estimator_lib's RunConfig(steps_per_run=N) builds the model_fn in a loop body.
        calls = []
        est = self._estimator(_make_model_fn(calls), steps_per_run=2)
        est.train(_train_input_fn, max_steps=4)
        self.assertEqual([("train", {"batch_size": 4, "use_tpu": False})], calls)
        self.assertEqual(4, est.get_variable_value("global_step"))


class MirroredStrategyTest(_Base):

    def test_train_distribute(self):
        # As the original: each replica's input_fn and model_fn get the global batch size.
        calls = []
        strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
        est = self._estimator(_make_model_fn(calls), train_distribute=strategy)
        est.train(_train_input_fn, max_steps=3)
        self.assertEqual([("train", {"batch_size": 4, "use_tpu": False})] * 2, calls)
        self.assertEqual(3, est.evaluate(_input_fn)["global_step"])


class UseTpuTest(_Base):

    def test_train_and_predict_need_use_tpu_false(self):
        est = self._estimator(use_tpu=True)
        with self.assertRaisesRegex(RuntimeError, r"Cannot find any TPU cores.*Pass "
                                    r"`use_tpu=False` to TPUEstimator"):
            est.train(_train_input_fn, max_steps=1)
        self.assertFalse(os.path.exists(os.path.join(self.get_temp_dir(), "checkpoint")))
        with self.assertRaisesRegex(RuntimeError, "use_tpu=False"):
            next(est.predict(_input_fn))
        with self.assertRaisesRegex(RuntimeError, r"evaluate \(eval_on_tpu=True\).*use_tpu=False"):
            est.evaluate(_input_fn)

    def test_eval_on_cpu_and_export_work_with_use_tpu(self):
        self._estimator().train(_train_input_fn, max_steps=2)
        config = tpu.RunConfig(model_dir=self.get_temp_dir())
        est = tpu.TPUEstimator(model_fn=_make_model_fn(), config=config, use_tpu=True,
                               eval_on_tpu=False, train_batch_size=4, eval_batch_size=6)
        self.assertEqual(2, est.evaluate(_input_fn)["global_step"])
        path = est.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                                      _serving_input_receiver_fn)
        self.assertTrue(tf.io.gfile.exists(os.path.join(path, b"saved_model.pb")))

    def test_constructor_checks(self):
        config = tpu.RunConfig(model_dir=self.get_temp_dir())
        model_fn = _make_model_fn()
        with self.assertRaisesRegex(ValueError, "`train_batch_size` cannot be `None`"):
            tpu.TPUEstimator(model_fn=model_fn, config=config)
        with self.assertRaisesRegex(ValueError, "train_batch_size must be positive"):
            tpu.TPUEstimator(model_fn=model_fn, config=config, train_batch_size=0)
        with self.assertRaisesRegex(ValueError, "eval_batch_size must be positive"):
            tpu.TPUEstimator(model_fn=model_fn, config=config, train_batch_size=2,
                             eval_batch_size=-1)
        with self.assertRaisesRegex(ValueError, "must be provided with type "
                                    "`tpu_config.RunConfig`"):
            tpu.TPUEstimator(model_fn=model_fn, config=estimator_lib.RunConfig(),
                             use_tpu=False)
        with self.assertRaisesRegex(ValueError, "export_saved_model_api_version should be 1 "
                                    "or 2"):
            tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False,
                             export_saved_model_api_version=3)
        # use_tpu=False needs no batch size, as in the original.
        tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False)

    def test_embedding_config_spec_names_the_alternative(self):
        spec = tpu.experimental.EmbeddingConfigSpec(feature_columns=[],
                                                    optimization_parameters=None)
        with self.assertRaisesRegex(ValueError, "embedding_config_spec.*not supported.*"
                                    "embedding_column"):
            tpu.TPUEstimator(model_fn=_make_model_fn(), use_tpu=False, embedding_config_spec=spec,
                             config=tpu.RunConfig(model_dir=self.get_temp_dir()))


class ExportTest(_Base):

    def test_export_signature(self):
        est = self._estimator()
        est.train(_train_input_fn, max_steps=1)
        path = est.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                                      _serving_input_receiver_fn)
        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            meta_graph = tf.compat.v1.saved_model.load(session, ["serve"], path)
            signature = meta_graph.signature_def["serving_default"]
            self.assertEqual({"x"}, set(signature.inputs))
            self.assertEqual({"logits", "classes"}, set(signature.outputs))
            logits = session.run(signature.outputs["logits"].name,
                                 {signature.inputs["x"].name: _X[:3]})
        self.assertEqual((3, 2), logits.shape)
        predicted = [p["logits"] for p in est.predict(_input_fn)][:3]
        self.assertAllClose(predicted, logits)

    def test_module_names_match_the_original(self):
        self.assertIs(tpu.TPUEstimator, tpu_estimator_lib.TPUEstimator)
        self.assertIs(tpu.TPUEstimatorSpec, tpu_estimator_lib.TPUEstimatorSpec)
        self.assertEqual(1, tpu_estimator_lib.ExportSavedModelApiVersion.V1.value)
        self.assertTrue(issubclass(tpu_estimator_lib.ExamplesPerSecondHook,
                                   tf.compat.v1.train.StepCounterHook))
        self.assertIsInstance(self._estimator(), estimator_lib.Estimator)


if __name__ == "__main__":
    tf.test.main()
