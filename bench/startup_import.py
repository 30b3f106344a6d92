"""What `import estimator_lib` costs beyond TensorFlow and tf_keras (issue 27; not a test).

Fresh processes, `--rounds` times: each imports TensorFlow, then tf_keras, then
estimator_lib, timing each import inside the process, then reads one lazily loaded
name (`estimator_lib.DNNClassifier`: the canned estimators, heads and tf_keras layers
it needs) and `estimator_lib.model_to_estimator`. Bytecode is cached in a temporary
folder (PYTHONPYCACHEPREFIX) and one untimed process fills it first, as an installed
package has its .pyc files; the module counts come from the same processes.

    python bench/startup_import.py --rounds=7
    python bench/startup_import.py --baseline_src=/tmp/base/src   # also an older tree,
        # interleaved (e.g. `git archive <commit> src | tar -x -C /tmp/base`)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import provenance  # this folder

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import tensorflow
t1 = time.perf_counter()
import tf_keras
t2 = time.perf_counter()
before = set(sys.modules)
import estimator_lib
t3 = time.perf_counter()
loaded = set(sys.modules) - before
estimator_lib.Estimator, estimator_lib.RunConfig
t4 = time.perf_counter()
estimator_lib.DNNClassifier
t5 = time.perf_counter()
estimator_lib.model_to_estimator
t6 = time.perf_counter()
print(json.dumps({"tensorflow": t1 - t0, "tf_keras": t2 - t1, "estimator_lib": t3 - t2,
                  "core_names": t4 - t3, "DNNClassifier": t5 - t4,
                  "model_to_estimator": t6 - t5,
                  "modules": len(loaded),
                  "tf_keras_modules": sum(m.split(".")[0] == "tf_keras" for m in loaded),
                  "estimator_lib_modules": sum(m.startswith("estimator_lib") for m in loaded)}))
"""
_KEYS = ("tensorflow", "tf_keras", "estimator_lib", "DNNClassifier", "model_to_estimator")


def _child(env):
    result = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                            text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--baseline_src", default=None,
                        help="Another tree's src/ folder, measured in the same rounds.")
    args = parser.parse_args(argv)
    started = provenance.start()
    trees = {"this tree": os.path.join(_REPO, "src")}
    if args.baseline_src:
        trees["baseline"] = os.path.abspath(args.baseline_src)
    envs = {}
    for name, src in trees.items():
        env = dict(os.environ, PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="startup_pyc_"),
                   TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=src)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        _child(env)  # Untimed: writes the bytecode cache.
        envs[name] = env
    runs = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, env in envs.items():
            runs[name].append(_child(env))
    print(provenance.line(started) + f"; {args.rounds} interleaved rounds of fresh "
          "processes, after one per tree that cached the bytecode; seconds, median (min-max)")
    print()
    print("| import, in this order | " + " | ".join(trees) + " |")
    print("|---|" + "---:|" * len(trees))
    for key in _KEYS:
        label = key if key in ("tensorflow", "tf_keras", "estimator_lib") else (
            f"first read of estimator_lib.{key}")
        cells = []
        for name in trees:
            values = [r[key] for r in runs[name]]
            cells.append(f"{statistics.median(values):.3f} ({min(values):.3f}-"
                         f"{max(values):.3f})")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    for name in trees:
        last = runs[name][-1]
        print(f"- {name}: `import estimator_lib` loaded {last['modules']} modules: "
              f"{last['estimator_lib_modules']} of estimator_lib, {last['tf_keras_modules']} "
              f"of tf_keras.")


if __name__ == "__main__":
    main()
