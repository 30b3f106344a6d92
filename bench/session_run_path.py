"""One training step's session run, the Python side only: Session.run, the callable
cache (tf_internals/session_runs.py) of a baseline tree, and this tree's (issue 36).

A benchmark, not a test. The structure is what MonitoredSession runs for a canned
estimator's step: `{'caller': [train_op, loss], hook: fetches, ...}`, a new dict each
run, seven hooks (global step, loss, a dict of the global step). The graph is a tiny
assign_add so that the C++ side costs almost nothing and the Python side shows. All
ways take turns in one process, `--rounds` times; µs a run in the process's CPU time
and in wall time, median (min-max) over rounds.

    python bench/session_run_path.py --baseline_src=/tmp/perf_base/src --runs=3000

`--other_src=LABEL=PATH` (repeatable) adds more trees' caches to the same rounds;
`--as_monitored` passes a new empty `RunOptions` and `RunMetadata` with every run, as
MonitoredSession's `_HookedSession.run` does.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

import provenance  # this folder


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline_src", required=True, help="a tree's src/ to compare")
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--other_src", action="append", default=[],
                        help="LABEL=PATH: another tree's src/ in the same rounds")
    parser.add_argument("--as_monitored", action="store_true",
                        help="each run gets a new RunOptions() and RunMetadata()")
    args = parser.parse_args(argv)
    started = provenance.start()
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from estimator_lib.tf_internals import session_runs  # pylint: disable=import-outside-toplevel
    baseline = _load(os.path.join(args.baseline_src, "estimator_lib", "tf_internals",
                                  "session_runs.py"), "baseline_session_runs")
    others = []
    for i, spec in enumerate(args.other_src):
        label, path = spec.split("=", 1)
        others.append((label, _load(os.path.join(path, "estimator_lib", "tf_internals",
                                                 "session_runs.py"), f"other_{i}_session_runs")))
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        loss = tf.constant(0.5) * tf.cast(step, tf.float32)
        train_op = tf.compat.v1.assign_add(step, 1).op
        init = tf.compat.v1.global_variables_initializer()
    graph.finalize()
    hooks = [object() for _ in range(7)]

    def fetches():  # A new dict each run, as MonitoredSession's _HookedSession builds.
        return {"caller": [train_op, loss], hooks[0]: step, hooks[1]: step, hooks[2]: loss,
                hooks[3]: {"global_step": step}, hooks[4]: step, hooks[5]: step}

    ways = {}
    wraps = [("Session.run", None), ("baseline cache", baseline.fast_repeated_runs)]
    wraps += [(label, module.fast_repeated_runs) for label, module in others]
    wraps.append(("this tree", session_runs.fast_repeated_runs))
    for name, wrap in wraps:
        session = tf.compat.v1.Session(graph=graph)
        session = wrap(session) if wrap else session
        session.run(init)
        ways[name] = session
    results = {name: ([], []) for name in ways}
    for name, session in ways.items():  # Warm-up: executors, callables.
        for _ in range(50):
            session.run(fetches())
    for _ in range(args.rounds):
        for name, session in ways.items():
            run = session.run
            cpu, wall = time.process_time(), time.perf_counter()
            if args.as_monitored:
                options, metadata = tf.compat.v1.RunOptions, tf.compat.v1.RunMetadata
                for _ in range(args.runs):
                    run(fetches(), options=options(), run_metadata=metadata())
            else:
                for _ in range(args.runs):
                    run(fetches())
            results[name][0].append((time.process_time() - cpu) / args.runs * 1e6)
            results[name][1].append((time.perf_counter() - wall) / args.runs * 1e6)
    monitored = "; options and run_metadata as MonitoredSession" if args.as_monitored else ""
    print(provenance.line(started) + f"; TF {tf.__version__}; {args.rounds} rounds of "
          f"{args.runs} runs each way, interleaved{monitored}; µs a run, median (min-max) "
          f"over rounds")
    print()
    print("| way | CPU µs a run | wall µs a run | CPU x Session.run |")
    print("|---|---:|---:|---:|")
    plain = statistics.median(results["Session.run"][0])
    for name, (cpu, wall) in results.items():
        print(f"| {name} | {statistics.median(cpu):.1f} ({min(cpu):.1f}-{max(cpu):.1f}) | "
              f"{statistics.median(wall):.1f} ({min(wall):.1f}-{max(wall):.1f}) | "
              f"{statistics.median(cpu) / plain:.2f} |")
    for session in ways.values():
        session.close()


if __name__ == "__main__":
    sys.exit(main())
