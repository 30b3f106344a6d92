"""Writes tests/data/tf215_exceptions.json: what the ORIGINAL raised for each named program.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_exceptions.py

Runs every case of `exception_cases.py` (shared with
`tests/estimator_lib/legacy/exceptions_test.py`) on TF 2.15.1 + tensorflow-estimator
2.15.0 and records, per case, the exception's type (module and qualified name), the
names of its MRO, the first line of its message and the case's key phrase; null where
the original raised nothing. It refuses to write the record when a case's message lacks
the key phrase the case declares (`exception_cases.KEYS`: the case stopped at another
check first), or when a case raised and declares none, or declares one and raised
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


def key_problem(name, key, error):
    """Why `error` is not what case `name` (declaring `key`) is named after; "" if it is."""
    if error is None:
        return "" if key is None else f"{name}: raised nothing; its key phrase is {key!r}"
    if key is None:
        return f"{name}: declares no key phrase but raised {type_name(type(error))}: {error}"
    if key not in str(error):
        return (f"{name}: the message does not contain the key phrase {key!r}, so the case "
                f"stops at another check: {type_name(type(error))}: {str(error)[:500]}")
    return ""


def describe(error, key) -> dict:
    if error is None:
        return None
    message = str(error).strip().splitlines()
    return {"type": type_name(type(error)),
            "mro": [type_name(k) for k in type(error).__mro__],
            "message": (message[0] if message else "")[:300],
            "key": key}


def main(names):
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, HERE)
    import exception_cases  # pylint: disable=import-outside-toplevel
    cases = {}
    if names and os.path.exists(OUTPUT):
        with open(OUTPUT) as f:
            cases = json.load(f)["cases"]
    problems = []
    for name, function in sorted(exception_cases.CASES.items()):
        if names and name not in names:
            continue
        error = run_case(function, tf)
        problems.append(key_problem(name, exception_cases.KEYS[name], error))
        cases[name] = describe(error, exception_cases.KEYS[name])
        print(name, cases[name] and cases[name]["type"], flush=True)
    problems = [problem for problem in problems if problem]
    if problems:
        sys.exit("Not written: a case does not reach the check it is named after.\n"
                 + "\n".join(problems))
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
