"""What InputStallHook costs a training step (not a test).

A tiny model (one dense layer on 32 features, batch 32) trains with and
without the hook. Tiny steps are the hook's worst case: the model costs almost
nothing, so any per-step cost of the hook shows in full. Two measurements:

- A/B: `--steps` steps per run, with and without the hook, in alternating
  order, `--repeats` times; each run's figure is the mean wall time of its
  steps after warm-up (TimeHistory, present in every run). Load from other
  processes only ever adds time, so the ratio compares each configuration's
  fastest run with the fastest run without the hook. On a shared machine the
  runs themselves differ by +-20%, so this bounds the cost rather than
  resolving it.
- Components, within one session, free of run-to-run noise: what a sampled
  (traced) step costs beyond its untraced neighbours (paired, median over
  samples), and what the hook's before_run/after_run cost on a step it does
  not sample (timed directly). Then, for sampling every N steps,

      modelled ratio = 1 + (unsampled_cost + sampled_extra / N) / step_time.

    PYTHONPATH=. python bench/hook_overhead.py --steps=2000 --repeats=5
    PYTHONPATH=. python bench/hook_overhead.py --devices=2   # MirroredStrategy, 2 CPUs
"""

import argparse
import json
import statistics
import tempfile
import time

import estimator_lib as el  # noqa: F401  (before TensorFlow: Keras 2)
import numpy as np
import tensorflow as tf

WARM_STEPS = 50
_NEIGHBOURS = 4


def _input_fn(batch_size):
    rng = np.random.RandomState(0)
    x = rng.randn(1024, 32).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return dataset.repeat().batch(batch_size).prefetch(2)

    return input_fn


def _model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _train(*, steps, batch_size, strategy, hooks):
    """Trains; returns the wall time of every step (TimeHistory listed first)."""
    timer = el.hooks.TimeHistory()
    config = el.RunConfig(model_dir=tempfile.mkdtemp(), train_distribute=strategy,
                          save_checkpoints_secs=None, save_checkpoints_steps=None,
                          log_step_count_steps=None)
    el.Estimator(_model_fn, config=config).train(
        _input_fn(batch_size), steps=steps, hooks=[timer] + hooks)
    return timer.wall_times


def measure_ab(*, steps, repeats, every_n_steps, strategy, batch_size):
    """Records of mean seconds/step per configuration and their ratios to no hook."""
    configs = {
        "no hook": lambda: [],
        f"InputStallHook(every_n_steps={every_n_steps})":
            lambda: [el.hooks.InputStallHook(every_n_steps=every_n_steps)],
        "InputStallHook(every_n_steps=1)":
            lambda: [el.hooks.InputStallHook(every_n_steps=1)],
    }
    times = {name: [] for name in configs}
    for repeat in range(repeats):
        order = list(configs) if repeat % 2 == 0 else list(reversed(configs))
        for name in order:
            wall = _train(steps=steps, batch_size=batch_size, strategy=strategy,
                          hooks=configs[name]())[WARM_STEPS:]
            times[name].append(sum(wall) / len(wall))
    baseline = times["no hook"]
    return [{
        "measure": "ab", "config": name, "steps": steps, "repeats": repeats,
        "ms_per_step_best": 1e3 * min(values),
        "ms_per_step_median": 1e3 * statistics.median(values),
        "ratio_best": min(values) / min(baseline),
        "ratio_paired_median": statistics.median(v / b for v, b in zip(values, baseline)),
    } for name, values in times.items()]


def _unsampled_call_seconds(calls=20000):
    """Seconds of one before_run + after_run of a hook on a step it does not sample."""
    with tf.Graph().as_default():
        hook = el.hooks.InputStallHook(every_n_steps=10**9, warm_steps=10**9)
        tf.compat.v1.train.create_global_step()
        tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.range(1)).get_next()
        hook.begin()
        start = time.perf_counter()
        for _ in range(calls):
            hook.before_run(None)
            hook.after_run(None, None)
        return (time.perf_counter() - start) / calls


def measure_components(*, steps, every_n_steps, sample_every, strategy, batch_size):
    """Traced-step extra cost and unsampled-step cost, then modelled ratios."""
    hook = el.hooks.InputStallHook(every_n_steps=sample_every, warm_steps=WARM_STEPS)
    wall = _train(steps=steps, batch_size=batch_size, strategy=strategy, hooks=[hook])
    sampled = set(range(WARM_STEPS, len(wall), sample_every))
    extras, untraced = [], []
    for i in sorted(sampled):
        # The trace lands in step i, parsing its stats in step i+1 (after the timer's stamp).
        around = [wall[j] for j in range(i - _NEIGHBOURS, i + 2 + _NEIGHBOURS)
                  if WARM_STEPS <= j < len(wall) and j not in sampled and j - 1 not in sampled]
        if len(around) < _NEIGHBOURS or i + 1 >= len(wall):
            continue
        typical = statistics.median(around)
        extras.append(wall[i] + wall[i + 1] - 2 * typical)
        untraced.append(typical)
    extra = statistics.median(extras)
    step = statistics.median(untraced)
    unsampled = _unsampled_call_seconds()
    records = [{
        "measure": "components", "sampled_steps": len(extras),
        "ms_per_untraced_step": 1e3 * step, "ms_extra_per_traced_step": 1e3 * extra,
        "us_hook_calls_per_unsampled_step": 1e6 * unsampled}]
    for n in sorted({1, 10, every_n_steps}):
        records.append({"measure": "modelled", "config": f"InputStallHook(every_n_steps={n})",
                        "ratio": 1 + (unsampled + extra / n) / step})
    return records


def run(*, steps: int, repeats: int, every_n_steps: int, devices: int, batch_size: int):
    """All records: A/B runs, then components and modelled ratios."""
    strategy = None
    if devices > 1:
        strategy = tf.distribute.MirroredStrategy([f"CPU:{i}" for i in range(devices)])
    common = dict(strategy=strategy, batch_size=batch_size)
    records = measure_ab(steps=steps, repeats=repeats, every_n_steps=every_n_steps, **common)
    records += measure_components(steps=max(steps, 1000), every_n_steps=every_n_steps,
                                  sample_every=10, **common)
    for record in records:
        record["devices"] = devices
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--every_n_steps", type=int, default=100)
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=32)
    args = parser.parse_args()
    if args.devices > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * args.devices)
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.WARN)
    records = run(steps=args.steps, repeats=args.repeats, every_n_steps=args.every_n_steps,
                  devices=args.devices, batch_size=args.batch_size)
    for r in records:
        if r["measure"] == "ab":
            print(f"A/B       {r['config']:<34} best {r['ms_per_step_best']:6.3f} ms/step "
                  f"x{r['ratio_best']:.3f}  (paired median x{r['ratio_paired_median']:.3f})")
        elif r["measure"] == "components":
            print(f"components: untraced step {r['ms_per_untraced_step']:.3f} ms, a traced step "
                  f"+{r['ms_extra_per_traced_step']:.3f} ms ({r['sampled_steps']} samples), "
                  f"hook calls on an unsampled step {r['us_hook_calls_per_unsampled_step']:.2f} us")
        else:
            print(f"modelled  {r['config']:<34} x{r['ratio']:.4f}")
    for r in records:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
