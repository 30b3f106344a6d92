"""Writes tests/data/tf215_trajectories.json with the ORIGINAL tf.estimator (TF 2.15.1).

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_trajectories.py [NAME...]

It runs every case of `trajectory_cases.CASES` (or the named ones, merged into
the existing file) with `trajectory_runs.run` and records, per case, the
variables it trained (`start`), the `trajectory_runs.checksum` ([sum, sum |v|,
sum v², digest]) of every variable when the session starts (`initial`) and after
`trajectory_cases.STEPS` steps (`variables`) and, where the case says so, `evaluate()`.
About 12 min on 2 shared cores.
Numbers only: nothing of the original is copied.
"""

import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # the repository root

import tensorflow as tf  # noqa: E402

from tests.data import trajectory_cases  # noqa: E402
from tests.data import trajectory_runs  # noqa: E402

OUT = os.path.join(HERE, "tf215_trajectories.json")


def rounded(value):
    """Numbers to 9 significant digits (the test compares to 1e-4): a smaller file."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def write(record):
    record["results"] = dict(sorted(record["results"].items()))
    text = json.dumps(rounded(record), indent=1, sort_keys=True)
    # Lists of numbers on one line each: a shorter file, a readable diff.
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]",
                  text)
    with open(OUT, "w") as f:
        f.write(text + "\n")


def main(names):
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    cases = [c for c in trajectory_cases.CASES if not names or c["name"] in names]
    record = {"tensorflow": tf.__version__, "steps": trajectory_cases.STEPS, "results": {}}
    if names and os.path.exists(OUT):
        with open(OUT) as f:
            record = json.load(f)
    with tempfile.TemporaryDirectory() as work:
        _record(cases, work, record)
    write(record)


def _record(cases, work, record):
    for case in cases:
        print(case["name"], flush=True)
        try:
            result = trajectory_runs.run(case, work)
        except Exception as e:  # pylint: disable=broad-except
            # Reported, not fatal (the other cases still record): the table is meant
            # to hold only cases the original runs.
            print("FAILED", case["name"], repr(e), flush=True)
            continue
        record["results"][case["name"]] = dict(case=case, **result)


if __name__ == "__main__":
    main(sys.argv[1:])
