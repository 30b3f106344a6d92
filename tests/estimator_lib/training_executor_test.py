"""train_and_evaluate's executor, the original's `training._TrainingExecutor`.

Libraries and the original's own tests build it, call its `run_<task type>` methods,
replace them on an instance or subclass it, and replace `training._TrainingExecutor`
itself; these tests pin what the original did in each case (its outcomes recorded by
the original's training_test.py on TF 2.15: docs/estimator.md, "The original's own unit
tests"), on small real runs where the original trained and with stand-ins where it
started servers or slept.
"""

import json
import os
import tempfile
from unittest import mock

import tensorflow as tf
from tensorflow.python.training import basic_session_run_hooks
from tensorflow.python.training import server_lib

import estimator_lib as el
from estimator_lib.engine import train_eval
from estimator_lib.engine import training_executor
from tests.estimator_lib import testing

_CLUSTER = {"chief": ["host0:0"], "ps": ["host1:1", "host2:2"],
            "worker": ["host3:3", "host4:4"]}


def _config(task_type=None, task_id=0, **kwargs):
    tf_config = {"cluster": _CLUSTER, "task": {"type": task_type, "index": task_id}}
    environ = {"TF_CONFIG": json.dumps(tf_config)} if task_type else {"TF_CONFIG": ""}
    with mock.patch.dict(os.environ, environ):
        return el.RunConfig(**kwargs)


class _Recording(tf.compat.v1.train.SessionRunHook):
    pass


class ExecutorTest(tf.test.TestCase):

    def _estimator(self, config=None):
        config = config or el.RunConfig()
        return el.Estimator(testing.linear_model_fn, config=config.replace(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir())))

    def _specs(self, max_steps=4, **eval_kwargs):
        eval_kwargs.setdefault("throttle_secs", 0)
        return (el.TrainSpec(testing.train_input_fn(), max_steps=max_steps),
                el.EvalSpec(testing.eval_input_fn(), steps=1, **eval_kwargs))

    def test_train_and_evaluate_builds_the_executor_named_in_the_module(self):
        # A replaced `training._TrainingExecutor` is the one train_and_evaluate builds.
        calls = []

        class Executor(training_executor._TrainingExecutor):
            def run_local(self):
                calls.append(self.estimator)
                return "ran"

        estimator = self._estimator()
        with mock.patch.object(train_eval, "_TrainingExecutor", Executor):
            self.assertEqual(el.train_and_evaluate(estimator, *self._specs()), "ran")
        self.assertEqual(calls, [estimator])

    def test_the_eval_spec_is_checked_first(self):
        with self.assertRaisesRegex(TypeError, "`eval_spec` must have type"):
            el.train_and_evaluate(None, None, None)
        with self.assertRaisesRegex(TypeError, "`estimator` must have type"):
            el.train_and_evaluate(None, None, self._specs()[1])

    def test_run_picks_the_method_of_the_task_type(self):
        train_spec, eval_spec = self._specs()
        for task_type in ("chief", "worker", "ps", "evaluator", None):
            estimator = self._estimator(_config(task_type))
            executor = training_executor._TrainingExecutor(estimator, train_spec, eval_spec)
            ran = []
            for name in ("chief", "worker", "ps", "evaluator", "local", "master"):
                setattr(executor, "run_" + name, lambda name=name: ran.append(name))
            executor.run()
            self.assertEqual(ran, [task_type or "local"])

    def test_run_refuses_a_task_without_a_method(self):
        estimator = self._estimator(_config("chief"))
        executor = training_executor._TrainingExecutor(estimator, *self._specs())
        executor.run_chief = 123  # Not callable: not a task.
        with self.assertRaisesRegex(ValueError, r"Task type chief is not supported. "
                                                r"Supported task types are \["):
            executor.run()

    def test_local_run_evaluates_each_new_checkpoint_and_exports_once_at_the_end(self):
        estimator = self._estimator(el.RunConfig(save_checkpoints_steps=10))
        exports = []

        class Exporter(el.Exporter):
            name = "recorder"

            def export(self, estimator, export_path, checkpoint_path, eval_result,
                       is_the_final_export):
                exports.append((eval_result["global_step"], is_the_final_export))
                return export_path

        train_spec, eval_spec = self._specs(max_steps=22, exporters=[Exporter()])
        metrics, results = training_executor._TrainingExecutor(
            estimator, train_spec, eval_spec).run_local()
        self.assertEqual(exports, [(10, False), (20, False), (22, True)])
        self.assertEqual(metrics["global_step"], 22)
        self.assertEqual(results, [os.path.join(estimator.model_dir, "export", "recorder")])

    def test_a_continuous_eval_listener_stops_training(self):
        estimator = self._estimator(el.RunConfig(save_checkpoints_steps=2))

        class StopAfterFirst(training_executor._ContinuousEvalListener):
            def after_eval(self, eval_result):
                return False

        train_spec, eval_spec = self._specs(max_steps=100)
        metrics, _ = training_executor._TrainingExecutor(
            estimator, train_spec, eval_spec,
            continuous_eval_listener=StopAfterFirst()).run_local()
        self.assertEqual(metrics["global_step"], 2)
        self.assertEqual(estimator.get_variable_value("global_step"), 2)

    def test_training_already_done_returns_nothing_as_the_original(self):
        estimator = self._estimator()
        train_spec, eval_spec = self._specs(max_steps=2)
        estimator.train(train_spec.input_fn, max_steps=2)
        self.assertEqual(el.train_and_evaluate(estimator, train_spec, eval_spec),
                         (None, None))

    def test_the_evaluator_stops_at_max_steps_and_throttles(self):
        estimator = self._estimator()
        train_spec, eval_spec = self._specs(max_steps=3, start_delay_secs=7,
                                            throttle_secs=60)
        estimator.train(train_spec.input_fn, max_steps=2)
        checkpoints = iter(["a", "b"])
        estimator.latest_checkpoint = lambda: next(checkpoints)
        estimator.evaluate = mock.Mock(side_effect=[{"global_step": 2},
                                                    {"global_step": 3}])
        with mock.patch("time.sleep") as sleep:
            training_executor._TrainingExecutor(estimator, train_spec,
                                                eval_spec).run_evaluator()
        self.assertEqual(estimator.evaluate.call_count, 2)
        self.assertEqual(sleep.call_args_list[0], mock.call(7))
        self.assertLen(sleep.call_args_list, 3)  # The delay, then each throttle wait.

    def test_the_throttle_timer_is_looked_up_where_programs_replace_it(self):
        timer = mock.Mock()
        with mock.patch.object(basic_session_run_hooks, "SecondOrStepTimer",
                               return_value=timer) as factory:
            listener = training_executor._NewCheckpointListenerForEvaluate(
                mock.Mock(), 10, training_executor._ContinuousEvalListener())
            listener.begin()
        factory.assert_called_once_with(every_secs=10)


class DistributedTrainingTest(tf.test.TestCase):

    def _run(self, task_type, task_id=0, **config):
        estimator = mock.Mock(spec=el.Estimator)
        estimator.config = _config(task_type, task_id, **config)
        train_spec = el.TrainSpec(lambda: None, max_steps=2, hooks=[_Recording()])
        executor = training_executor._TrainingExecutor(
            estimator, train_spec, None, train_hooks=[_Recording()])
        with mock.patch.object(server_lib, "Server") as server, \
                mock.patch("time.sleep") as sleep:
            getattr(executor, "run_" + task_type)()
        return estimator, server, sleep

    def test_the_chief_starts_its_server_and_trains_without_delay(self):
        estimator, server, sleep = self._run("chief")
        server.assert_called_once_with(
            estimator.config.cluster_spec, job_name="chief", task_index=0,
            config=mock.ANY, protocol=None, start=False)
        server.return_value.start.assert_called_once_with()
        sleep.assert_not_called()
        kwargs = estimator.train.call_args[1]
        self.assertLen(kwargs["hooks"], 2)  # The TrainSpec's, then the executor's.
        self.assertEqual(kwargs["saving_listeners"], ())

    def test_worker_i_waits_its_delay_unless_disabled(self):
        _, _, sleep = self._run("worker", 1)
        sleep.assert_called_once_with(10)  # (1 + 1) * 5 s, as the original.
        _, _, sleep = self._run("worker", 1, experimental_max_worker_delay_secs=0)
        sleep.assert_not_called()

    def test_the_server_is_checked_as_the_original(self):
        one_node = mock.Mock(cluster_spec=tf.train.ClusterSpec({"worker": ["a:1"]}),
                             master="", task_type="worker", task_id=0)
        self.assertIsNone(training_executor._TrainingExecutor._start_std_server(
            None, one_node))
        for broken in (dict(cluster_spec=None), dict(master=""), dict(task_type=""),
                       dict(task_id=None)):
            config = mock.Mock(cluster_spec=tf.train.ClusterSpec(_CLUSTER),
                               master="grpc://a:1", task_type="worker", task_id=0)
            for name, value in broken.items():
                setattr(config, name, value)
            with self.subTest(broken), self.assertRaisesRegex(
                    RuntimeError, "Could not start server; be sure to specify"):
                training_executor._TrainingExecutor._start_std_server(None, config)


if __name__ == "__main__":
    tf.test.main()
