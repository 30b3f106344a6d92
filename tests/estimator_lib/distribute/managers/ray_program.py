"""An Estimator job in Ray Train: `TensorflowTrainer`, two workers, on a local Ray.

    python ray_program.py MODEL_DIR OUT_DIR

Ray starts two worker actors and sets each one's TF_CONFIG (`{"cluster": {"worker":
[...]}, "task": {"type": "worker", "index": i}}`); every worker runs `train_loop`:
train_and_evaluate under MultiWorkerMirroredStrategy, worker 0 acting as the chief. The
chief evaluates the final checkpoint and reports it to Ray with model_dir as Ray's
checkpoint. Each worker writes what its RunConfig reported to OUT_DIR/<rank>.json; the
driver writes Ray's result to OUT_DIR/result.json.
"""

import json
import os
import sys
import tempfile

MAX_STEPS = 12


def train_loop(config):
    """Ray Train's `train_loop_per_worker`: the program every worker runs."""
    import estimator_lib as el  # pylint: disable=import-outside-toplevel
    import ray.train  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    # pylint: disable-next=import-outside-toplevel
    from tests.estimator_lib.distribute.multi_worker import program

    strategy = tf.distribute.MultiWorkerMirroredStrategy()  # reads Ray's TF_CONFIG
    run_config = el.RunConfig(model_dir=config["model_dir"], train_distribute=strategy,
                              save_checkpoints_steps=4, tf_random_seed=1)
    estimator = el.Estimator(program.model_fn, config=run_config)
    el.train_and_evaluate(
        estimator, el.TrainSpec(program.input_fn, max_steps=MAX_STEPS),
        el.EvalSpec(program.input_fn, steps=None, start_delay_secs=0, throttle_secs=1))
    rank = ray.train.get_context().get_world_rank()
    view = dict(program.config_view(estimator.config), tf_config=os.environ["TF_CONFIG"])
    with open(os.path.join(config["out_dir"], f"{rank}.json"), "w") as f:
        json.dump(view, f)
    if estimator.config.is_chief:
        metrics = estimator.evaluate(lambda: program.input_fn(el.ModeKeys.EVAL))
        ray.train.report({k: float(v) for k, v in metrics.items()},
                         checkpoint=ray.train.Checkpoint.from_directory(config["model_dir"]))
    else:
        ray.train.report({})


def main(model_dir, out_dir):
    import ray  # pylint: disable=import-outside-toplevel
    from ray.train import RunConfig  # pylint: disable=import-outside-toplevel
    from ray.train import ScalingConfig  # pylint: disable=import-outside-toplevel
    from ray.train.tensorflow import TensorflowTrainer  # pylint: disable=import-outside-toplevel

    # Two workers of one logical CPU each, and one for Ray's own controller: on a
    # 2-core machine the CPUs are logical (Ray schedules by them, the OS shares cores).
    ray.init(num_cpus=3, include_dashboard=False, _temp_dir=os.path.join(out_dir, "ray"))
    try:
        trainer = TensorflowTrainer(
            train_loop, train_loop_config={"model_dir": model_dir, "out_dir": out_dir},
            scaling_config=ScalingConfig(num_workers=2, resources_per_worker={"CPU": 1}),
            run_config=RunConfig(storage_path=os.path.join(out_dir, "storage"),
                                 name="estimator"))
        result = trainer.fit()
        checkpoint = result.checkpoint.path if result.checkpoint else None
        with open(os.path.join(out_dir, "result.json"), "w") as f:
            json.dump({"metrics": result.metrics, "checkpoint": checkpoint,
                       "ray": ray.__version__}, f)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp())
