"""Writes tests/data/tf215_call_time_reads.json: what the ORIGINAL's public methods read on `self`.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_call_time_reads.py

Runs the programs of `call_time_cases.py` (shared with
`tests/estimator_lib/legacy/call_time_reads_test.py`) on TF 2.15.1 +
tensorflow-estimator 2.15.0 and records:

- `reads`: for each read program (Estimator, the v2 and v1 canned estimators, the v2
  heads through DNNEstimator/LinearEstimator, TPUEstimator with use_tpu=False) and for
  the v2 heads' public methods called directly, each instance attribute (a name in the
  instance's `__dict__`) a public method of the estimator or head read on `self`
  during train, evaluate, predict and export_saved_model: [program, role, class name,
  method, attribute];
- `effects`: for each effect program, what replacing one attribute on a built
  instance changed (losses, metric values, the modes a wrapped model_fn saw), or the
  error it raised.

Only the original's outputs are kept, never its code. About a minute on 2 cores.
"""

import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "tf215_call_time_reads.json")
sys.path.insert(0, HERE)

import call_time_cases  # noqa: E402  pylint: disable=wrong-import-position


def _versions():
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    return {name: metadata.version(name)
            for name in ("tensorflow-cpu", "tensorflow-estimator", "keras")}


def main(argv):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    bases = call_time_cases.original_bases()
    reads, effects = [], {}
    start = time.time()
    for name in sorted(call_time_cases.READ_PROGRAMS):
        tmp = tempfile.mkdtemp(prefix="call_time_")
        try:
            reads += [[name] + row for row in
                      call_time_cases.run_read_program(name, tf, tmp, bases)]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print(name, len(reads), round(time.time() - start), flush=True)
    reads += call_time_cases.head_calls(tf, bases)
    for name, program in sorted(call_time_cases.EFFECT_PROGRAMS.items()):
        tmp = tempfile.mkdtemp(prefix="call_time_effect_")
        try:
            effects[name] = program(tf, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print(name, effects[name], flush=True)
    with open(OUTPUT, "w") as f:
        json.dump({"versions": _versions(), "reads": reads, "effects": effects}, f,
                  indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(reads)} reads, {len(effects)} effects -> {OUTPUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
