"""A run_classifier.py-shaped program (bert_classifier_program.py) on CPU, as on the original.

The program is written against `tf.compat.v1.estimator.tpu.*` and runs in a
subprocess, with its absl flags, after `estimator_lib.compat.install()`. The
expected values below were observed running the same program and flags on the
original (TF 2.15.1 + tensorflow-estimator 2.15.0, CPU, use_tpu=False).
"""

import json
import os
import subprocess
import sys

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))

# Imports the program, writes its init checkpoint, parses its flags and runs its main.
# `tf.compat.v1.estimator.tpu = estimator_lib.tpu` stands in for the compat layer's
# alias until estimator_lib.compat provides it (then the line is a no-op).
_DRIVER = """
import sys
import estimator_lib
import estimator_lib.tpu
from estimator_lib import compat
compat.install()
import tensorflow as tf
tf.compat.v1.estimator.tpu = estimator_lib.tpu
sys.path.insert(0, {here!r})
import bert_classifier_program as program
from absl import flags
program.write_init_checkpoint(sys.argv[1], 32, 4)
argv = ["bert_classifier_program.py"] + sys.argv[2:]
flags.FLAGS(argv)
program.main(argv)
"""

# Observed on the original.
_EVAL_KEYS = {"eval_accuracy": "float32", "eval_loss": "float32", "global_step": "int64",
              "loss": "float32"}
_MODEL_DIR_FILES = [
    "checkpoint", "eval/events", "eval_results.txt", "events", "graph.pbtxt",
    "model.ckpt-0.data-00000-of-00001", "model.ckpt-0.index", "model.ckpt-0.meta",
    "model.ckpt-3.data-00000-of-00001", "model.ckpt-3.index", "model.ckpt-3.meta",
    "model.ckpt-6.data-00000-of-00001", "model.ckpt-6.index", "model.ckpt-6.meta",
    "program_results.json", "test_results.tsv"]
_CHECKPOINT_VARIABLES = [
    ("bert/embeddings/word_embeddings", [32, 4]),
    ("bert/embeddings/word_embeddings/adam_m", [32, 4]),
    ("bert/embeddings/word_embeddings/adam_v", [32, 4]), ("global_step", []),
    ("output_bias", [2]), ("output_bias/adam_m", [2]), ("output_bias/adam_v", [2]),
    ("output_weights", [2, 4]), ("output_weights/adam_m", [2, 4]),
    ("output_weights/adam_v", [2, 4])]
# The original wrote the training loss as "loss_1" (the model_fn has an op named
# "loss"); here it is "loss", so training and evaluation curves overlay
# (docs/estimator.md, deliberate difference 13).
_TRAIN_TAGS = {"loss"}
_EVAL_TAGS = {"checkpoint_path", "eval_accuracy", "eval_loss", "loss"}
# --do_eval --do_predict without training: every variable from the init checkpoint.
_UNTRAINED_EVAL_RESULTS = {"eval_accuracy": 0.625, "eval_loss": 0.6852644, "loss": 0.6852644}
_UNTRAINED_FIRST_PREDICTIONS = [[0.5430522, 0.45694777], [0.4786926, 0.5213074],
                                [0.4840843, 0.51591563]]


def _tags(directory):
    tags = set()
    for name in os.listdir(directory):
        if name.startswith("events.out.tfevents"):
            for event in tf.compat.v1.train.summary_iterator(os.path.join(directory, name)):
                tags.update(v.tag for v in event.summary.value)
    return tags


class BertClassifierProgramTest(tf.test.TestCase):

    @classmethod
    def _run(cls, root, *flags):
        """Runs the program in a subprocess; returns (process, model_dir, init checkpoint)."""
        model_dir = os.path.join(root, "model")
        init_checkpoint = os.path.join(root, "init", "bert_model.ckpt")
        args = [sys.executable, "-c", _DRIVER.format(here=_HERE), init_checkpoint,
                f"--data_dir={root}/data", f"--output_dir={model_dir}",
                f"--init_checkpoint={init_checkpoint}", f"--export_dir={root}/export",
                "--use_tpu=False", *flags]
        env = dict(os.environ, PYTHONPATH=_REPO)
        process = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300,
                                 check=False)
        return process, model_dir, init_checkpoint

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        root = tf.compat.v1.test.get_temp_dir()
        cls.process, cls.model_dir, cls.init_checkpoint = cls._run(
            os.path.join(root, "bert_program"), "--do_train", "--do_eval", "--do_predict",
            "--do_export", "--inter_op_threads=1")
        results = os.path.join(cls.model_dir, "program_results.json")
        cls.results = json.load(open(results)) if os.path.exists(results) else None
        # Evaluate and predict from the init checkpoint alone (no training).
        cls.untrained_process, cls.untrained_model_dir, _ = cls._run(
            os.path.join(root, "bert_program_untrained"), "--do_eval", "--do_predict")

    def setUp(self):
        super().setUp()
        self.assertEqual(0, self.process.returncode, self.process.stderr[-3000:])

    def test_log_lines(self):
        log = self.process.stderr
        for line in ("Running train on CPU/GPU", "Running eval on CPU/GPU",
                     "Running infer on CPU/GPU", "eval_on_tpu ignored because use_tpu is False.",
                     "Saving checkpoints for 6 into", "Loss for final step:",
                     "Saving dict for global step 6: eval_accuracy = "):
            self.assertIn(line, log)
        # TPUEstimator replaced the Estimator's loss logging with its step rates.
        self.assertNotIn("INFO:tensorflow:loss = ", log)

    def test_evaluate_keys_and_predictions(self):
        self.assertEqual({k: [v, v] for k, v in _EVAL_KEYS.items()}, self.results["eval"])
        self.assertEqual({"count": 21, "keys": ["probabilities"], "shape": [2]},
                         self.results["predict"])

    def test_model_dir(self):
        files = []
        for root, _, names in os.walk(self.model_dir):
            for name in names:
                rel = os.path.relpath(os.path.join(root, name), self.model_dir)
                files.append(rel.split(".out.tfevents")[0])
        self.assertEqual(_MODEL_DIR_FILES, sorted(files))
        self.assertEqual(_CHECKPOINT_VARIABLES, [
            (n, s) for n, s in tf.train.list_variables(tf.train.latest_checkpoint(self.model_dir))])
        self.assertEqual(_TRAIN_TAGS, _tags(self.model_dir))
        self.assertEqual(_EVAL_TAGS, _tags(os.path.join(self.model_dir, "eval")))

    def test_scaffold_fn_initialised_from_the_init_checkpoint(self):
        step0 = tf.train.load_checkpoint(os.path.join(self.model_dir, "model.ckpt-0"))
        init = tf.train.load_checkpoint(self.init_checkpoint)
        for name in ("bert/embeddings/word_embeddings", "output_weights", "output_bias"):
            self.assertAllEqual(init.get_tensor(name), step0.get_tensor(name))

    def test_export_signature(self):
        saved_model = saved_model_pb2.SavedModel()
        with open(os.path.join(self.results["export_path"], "saved_model.pb"), "rb") as f:
            saved_model.ParseFromString(f.read())
        # As the original (export_to_tpu=True): the CPU MetaGraph, then one tagged
        # [serve, tpu] whose outputs come from a TPUPartitionedCall (servable on TPUs).
        self.assertEqual([["serve"], ["serve", "tpu"]],
                         [list(m.meta_info_def.tags) for m in saved_model.meta_graphs])
        for meta_graph in saved_model.meta_graphs:
            signature = meta_graph.signature_def["serving_default"]
            self.assertEqual(["serving_default"], list(meta_graph.signature_def))
            self.assertEqual("tensorflow/serving/predict", signature.method_name)
            self.assertEqual(["examples"], list(signature.inputs))
            self.assertEqual(["probabilities"], list(signature.outputs))
        self.assertStartsWith(saved_model.meta_graphs[1].signature_def["serving_default"]
                              .outputs["probabilities"].name, "TPUPartitionedCall:")

    def test_numbers_from_the_init_checkpoint_match_the_original(self):
        # Trained numbers are not compared: BERT's create_optimizer reads global_step for
        # the learning rate unordered with its `global_step.assign(global_step + 1)`, so
        # they depend on op scheduling (see the report on the core's step-read dependency).
        self.assertEqual(0, self.untrained_process.returncode,
                         self.untrained_process.stderr[-3000:])
        with open(os.path.join(self.untrained_model_dir, "eval_results.txt")) as f:
            evaluated = dict(line.strip().split(" = ") for line in f)
        self.assertEqual("0", evaluated.pop("global_step"))
        self.assertAllClose(_UNTRAINED_EVAL_RESULTS,
                            {k: float(v) for k, v in evaluated.items()}, atol=1e-6)
        with open(os.path.join(self.untrained_model_dir, "test_results.tsv")) as f:
            predicted = [[float(v) for v in line.split("\t")] for line in f]
        self.assertLen(predicted, 21)
        self.assertAllClose(np.array(_UNTRAINED_FIRST_PREDICTIONS), np.array(predicted[:3]),
                            atol=1e-6)


if __name__ == "__main__":
    tf.test.main()
