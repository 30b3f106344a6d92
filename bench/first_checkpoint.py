"""Where model_to_estimator's first checkpoint spends its time (issue 36 part 2; not a test).

`model_to_estimator` writes the Keras weights to `model_dir/keras/` before it returns,
as the original did: it clones the model into a graph, builds its train function (the
optimizer's slots and hyperparameters belong in the file), builds the saver, runs the
initialisers with the Keras values and saves. This script calls `model_to_estimator`
on the seed CNN (bench/compare_run.py's, Adam) with a fresh model_dir, `--rounds`
times in one process, and times each of those phases by wrapping the functions the
conversion calls (nothing of the library is changed):

- clone: `cloning.clone_and_build` (the clone in its graph, compiled);
- train function: the clone's `_make_train_function`, of which the optimizer's
  `_create_slots` (the slot variables the file holds) is printed apart; the rest is
  the gradients and update ops, built as the original built them, that the file does
  not hold;
- saver: `cloning.object_based_saver`; save: `Saver.save`;
- the rest of `model_to_estimator`: reading the weights, the initialisers' run, the
  session, the Estimator's construction.

    python bench/first_checkpoint.py --rounds=7
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time

import provenance  # this folder


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    return parser.parse_args(argv)


class _Clock:
    """Seconds spent in wrapped functions, per phase, in the current round."""

    def __init__(self):
        self.round = {}

    def wrap(self, owner, name, phase):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.round[phase] = self.round.get(phase, 0.0) + time.perf_counter() - start
        setattr(owner, name, timed)


def main(argv=None):
    args = _parse(argv)
    started = provenance.start()
    import estimator_lib as el  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from estimator_lib.bin.jobs import models  # pylint: disable=import-outside-toplevel
    from estimator_lib.keras import cloning  # pylint: disable=import-outside-toplevel
    from tf_keras.src.engine import training_v1  # pylint: disable=import-outside-toplevel
    tf.get_logger().setLevel("ERROR")
    model = models.make_cnn(learning_rate=0.001)
    clock = _Clock()
    clock.wrap(cloning, "clone_and_build", "clone")
    clock.wrap(training_v1.Model, "_make_train_function", "train function")
    clock.wrap(type(model.optimizer.optimizer), "_create_slots", "slots")
    clock.wrap(cloning, "object_based_saver", "saver")
    clock.wrap(tf.compat.v1.train.Saver, "save", "save")
    rounds = []
    for _ in range(args.rounds):
        clock.round = {}
        model_dir = tempfile.mkdtemp(prefix="first_checkpoint_")
        start = time.perf_counter()
        el.model_to_estimator(keras_model=model, config=el.RunConfig(model_dir=model_dir))
        total = time.perf_counter() - start
        shutil.rmtree(model_dir)
        phases = dict(clock.round)
        phases["gradients and update ops"] = phases["train function"] - phases["slots"]
        phases["rest"] = total - sum(phases[p] for p in ("clone", "train function", "saver",
                                                         "save"))
        phases["model_to_estimator"] = total
        rounds.append(phases)
        print(f"round {len(rounds)}: {total:.3f} s", file=sys.stderr, flush=True)
    print(provenance.line(started) + f"; TF {tf.__version__}; the seed CNN (Adam); "
          f"{args.rounds} rounds in one process, the first included; ms, median (min-max)")
    print()
    print("| phase | ms |")
    print("|---|---:|")
    for phase in ("clone", "train function", "slots", "gradients and update ops", "saver",
                  "save", "rest", "model_to_estimator"):
        values = [r[phase] * 1e3 for r in rounds]
        indent = "- " if phase in ("slots", "gradients and update ops") else ""
        print(f"| {indent}{phase} | {statistics.median(values):.0f} "
              f"({min(values):.0f}-{max(values):.0f}) |")


if __name__ == "__main__":
    main()
