"""Our INFO log lines are the original's, line for line, on the reference probes.

tests/data/reference_logs/ holds what the original tf.estimator (TF 2.15.1) logged
running the probe programs of tests/data/make_tf215_fixtures.py. Those programs use
only the `tf.estimator` API, so here they run unchanged against estimator_lib
(through `estimator_lib.compat.install()`), all in one subprocess, and the INFO
lines of TensorFlow's logger are compared after normalisation: paths (the
generator's own `normalise_log`), numbers (values differ in the last digits),
dates. Differences on purpose are listed in DELIBERATE, each with its reason.
"""

import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
_GENERATOR = os.path.join(_DATA, "make_tf215_fixtures.py")
_PROBES = ("custom_model_fn_train", "skip_max_steps", "evaluate", "predict", "export",
           "model_to_estimator", "model_to_estimator_saver", "train_and_evaluate",
           "warm_start", "misc")

# (probe, pattern of an original line, pattern of ours or None) -> why it differs.
DELIBERATE = {
    # docs/estimator.md, deliberate difference 10: every Keras weight is warm-started,
    # not TRAINABLE_VARIABLES only (BatchNorm statistics were lost).
    "warm start of every Keras weight": (
        ("model_to_estimator", "model_to_estimator_saver"),
        r"Warm-starting with WarmStartSettings: .*vars_to_warm_start='\.\*'"
        r"|Warm-starting variables only in TRAINABLE_VARIABLES\.",
        r"Warm-starting with WarmStartSettings: .*vars_to_warm_start=\["),
}

_RUNNER = textwrap.dedent("""
    import importlib.util, logging, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import estimator_lib
    estimator_lib.compat.install()
    import tensorflow as tf
    spec = importlib.util.spec_from_file_location("generator", sys.argv[1])
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    work = sys.argv[2]
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    for name in sys.argv[3:]:
        handler = logging.FileHandler(os.path.join(work, name + ".log"), "w")
        handler.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
        root.addHandler(handler)
        generator.seed_python_random()
        getattr(generator, "probe_" + name)(work, {})
        root.removeHandler(handler)
        handler.close()
        with open(os.path.join(work, name + ".log")) as f:
            text = generator.normalise_log(f.read(), work, name)
        with open(os.path.join(work, name + ".norm.log"), "w") as f:
            f.write(text)
""")


def _records(text):
    """The log's lines, with the `Using config:` dict (its session config prints on
    several lines) joined into one."""
    records = []
    for line in text.splitlines():
        if (records and "Using config: {" in records[-1]
                and records[-1].count("{") > records[-1].count("}")):
            records[-1] += "\n" + line
        else:
            records.append(line)
    return records


def _info_lines(text):
    lines = []
    for line in _records(text):
        if not line.startswith("INFO:tensorflow:"):
            continue
        line = re.sub(r"\d{4}-\d\d-\d\d[T-]\d\d:\d\d:\d\d", "<date>", line)
        line = re.sub(r"(global_step/sec: )\S+", r"\1<rate>", line)  # A rate may print as 2939.
        lines.append(re.sub(r"-?\d+\.\d+(e-?\d+)?", "<n>", line))
    return lines


class ReferenceLogsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp()
        subprocess.run([sys.executable, "-c", _RUNNER, _GENERATOR, cls.work, *_PROBES],
                       check=True, timeout=600)

    def _compare(self, probe):
        with open(os.path.join(_DATA, "reference_logs", probe + ".log")) as f:
            theirs = _info_lines(f.read())
        with open(os.path.join(self.work, probe + ".norm.log")) as f:
            ours = _info_lines(f.read())
        for probes, original, replacement in DELIBERATE.values():
            if probe in probes:
                theirs = [line for line in theirs if not re.search(original, line)]
                ours = [line for line in ours if not re.search(replacement, line)]
        self.assertEqual(theirs, ours)

    def test_custom_model_fn_train(self):
        self._compare("custom_model_fn_train")

    def test_skip_max_steps(self):
        self._compare("skip_max_steps")

    def test_evaluate(self):
        self._compare("evaluate")

    def test_predict(self):
        self._compare("predict")

    def test_export(self):
        self._compare("export")

    def test_model_to_estimator(self):
        self._compare("model_to_estimator")

    def test_model_to_estimator_saver(self):
        self._compare("model_to_estimator_saver")

    def test_train_and_evaluate(self):
        self._compare("train_and_evaluate")

    def test_warm_start(self):
        self._compare("warm_start")

    def test_misc(self):
        self._compare("misc")


if __name__ == "__main__":
    unittest.main()
