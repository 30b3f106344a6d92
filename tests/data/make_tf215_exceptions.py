"""Writes tests/data/tf215_exceptions.json: what the ORIGINAL raised for each named program.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_exceptions.py

Runs every case of `exception_cases.py` (shared with
`tests/estimator_lib/legacy/exceptions_test.py`) on TF 2.15.1 + tensorflow-estimator
2.15.0 and records, per case, the exception's type (module and qualified name), the
names of its MRO and the first line of its message; null where the original raised
nothing. Only the original's outputs are kept.
"""

import json
import os
import shutil
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "tf215_exceptions.json")
TIMEOUT_SECS = 120


def type_name(klass) -> str:
    return f"{klass.__module__}.{klass.__qualname__}"


class CaseTimeout(BaseException):
    """A case ran past TIMEOUT_SECS (BaseException: no case's `except Exception` eats it)."""


def _alarm(signum, frame):
    raise CaseTimeout()


def run_case(function, tf):
    """The exception `function(tf, tmp)` raised, or None."""
    tmp = tempfile.mkdtemp(prefix="exception_case_")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_SECS)
    try:
        function(tf, tmp)
    except Exception as e:  # pylint: disable=broad-except  (what we record)
        return e
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        shutil.rmtree(tmp, ignore_errors=True)
    return None


def describe(error) -> dict:
    if error is None:
        return None
    message = str(error).strip().splitlines()
    return {"type": type_name(type(error)),
            "mro": [type_name(k) for k in type(error).__mro__],
            "message": (message[0] if message else "")[:300]}


def main(names):
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, HERE)
    import exception_cases  # pylint: disable=import-outside-toplevel
    cases = {}
    if names and os.path.exists(OUTPUT):
        with open(OUTPUT) as f:
            cases = json.load(f)["cases"]
    for name, function in sorted(exception_cases.CASES.items()):
        if names and name not in names:
            continue
        cases[name] = describe(run_case(function, tf))
        print(name, cases[name] and cases[name]["type"], flush=True)
    record = {"recorded_with": {"tensorflow": tf.__version__,
                                "tensorflow_estimator": metadata.version("tensorflow-estimator"),
                                "python": sys.version.split()[0]},
              "cases": cases}
    with open(OUTPUT, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    raised = sum(1 for value in cases.values() if value)
    print(f"{len(cases)} cases, {raised} raised -> {OUTPUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
