"""A user's trainer as a cluster manager runs it: the same file on every task, reading
its cluster from TF_CONFIG and its model_dir from the manager's conventions.

    python managed_program.py [--model_dir=DIR] [--strategy=mwms|none] [--train_steps=N]

model_dir: `--model_dir` (Kubeflow: a mounted volume; SageMaker: the S3 URI it passes),
else Vertex AI's `AIP_CHECKPOINT_DIR`. With `--strategy=mwms` every training task builds
a MultiWorkerMirroredStrategy (the evaluator none); with `none`, a cluster with `ps`
trains with parameter servers. The model is census.py's (a DNNLinearCombinedClassifier);
the exporter writes to model_dir/export/census, and on SageMaker the master also copies
the export to SM_MODEL_DIR (what SageMaker uploads as the model). Every task prints
`CONFIG {...}` (what its RunConfig reports) and `DONE <type><index>`.
"""

import argparse
import json
import os
import shutil

import estimator_lib as estimator  # first: tf.keras must be Keras 2
import tensorflow as tf

from tests.estimator_lib.distribute.parameter_servers import census


def serving_input_fn():
    inputs = {"age": tf.compat.v1.placeholder(tf.float32, [None]),
              "hours_per_week": tf.compat.v1.placeholder(tf.float32, [None]),
              "education": tf.compat.v1.placeholder(tf.string, [None])}
    return estimator.export.ServingInputReceiver(inputs, inputs)


def _config_view(config):
    return {"task_type": config.task_type, "task_id": config.task_id,
            "is_chief": config.is_chief, "num_worker_replicas": config.num_worker_replicas,
            "num_ps_replicas": config.num_ps_replicas, "master": config.master}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", default=os.environ.get("AIP_CHECKPOINT_DIR"))
    parser.add_argument("--strategy", choices=["mwms", "none"], default="none")
    parser.add_argument("--train_steps", type=int, default=20)
    args = parser.parse_args()
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    strategy = None
    if args.strategy == "mwms" and task["type"] != "evaluator":
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    config = estimator.RunConfig(model_dir=args.model_dir, train_distribute=strategy,
                                 save_checkpoints_steps=20, tf_random_seed=1,
                                 experimental_max_worker_delay_secs=0)
    age = tf.feature_column.numeric_column("age")
    hours = tf.feature_column.numeric_column("hours_per_week")
    education = tf.feature_column.categorical_column_with_vocabulary_list(
        "education", census._EDUCATION)  # pylint: disable=protected-access
    model = estimator.DNNLinearCombinedClassifier(
        config=config, linear_feature_columns=[education, age],
        dnn_feature_columns=[tf.feature_column.indicator_column(education), age, hours],
        dnn_hidden_units=[8, 4])
    exporter = estimator.FinalExporter("census", serving_input_fn)
    estimator.train_and_evaluate(
        model, estimator.TrainSpec(census.input_fn(256, 0, True), max_steps=args.train_steps),
        estimator.EvalSpec(census.input_fn(64, 1, False), steps=None, exporters=[exporter],
                           start_delay_secs=0, throttle_secs=1))
    export_dir = os.path.join(args.model_dir, "export", "census")
    if os.environ.get("SM_MODEL_DIR") and tf.io.gfile.exists(export_dir):
        shutil.copytree(export_dir, os.environ["SM_MODEL_DIR"], dirs_exist_ok=True)
    print("CONFIG", json.dumps(_config_view(model.config)), flush=True)
    print("DONE", f"{task['type']}{task['index']}", flush=True)


if __name__ == "__main__":
    main()
