"""Records what the original RunConfig (TF 2.15.1, tensorflow-estimator 2.15.0) reports
on every task of each cluster manager's job (tests/data/cluster_managers.json).

    /tmp/tf215/bin/python tests/data/make_tf215_cluster_managers.py

Each task's environment is set as the manager sets it (no strategy: a RunConfig alone
starts no server) and `tf.estimator.RunConfig()` read; writes
tests/data/tf215_cluster_managers.json. managers_test.py checks estimator_lib's
RunConfig against it.
"""

import json
import os
import sys

import tensorflow as tf

_HERE = os.path.dirname(os.path.abspath(__file__))


def view(config):
    """The RunConfig fields a task's role rests on."""
    return {"task_type": config.task_type, "task_id": config.task_id,
            "is_chief": config.is_chief, "master": config.master,
            "evaluation_master": config.evaluation_master,
            "num_ps_replicas": config.num_ps_replicas,
            "num_worker_replicas": config.num_worker_replicas,
            "global_id_in_cluster": config.global_id_in_cluster,
            "cluster_spec": config.cluster_spec.as_dict(),
            "device_filters": list(config.session_config.device_filters)
            if config.session_config else None}


def main():
    with open(os.path.join(_HERE, "cluster_managers.json")) as f:
        shapes = {k: v for k, v in json.load(f).items() if k != "README"}
    record = {"versions": {"tensorflow": tf.__version__,
                           "python": sys.version.split()[0]}}
    for manager, shape in shapes.items():
        record[manager] = {}
        for task in shape["tasks"]:
            if task["runs"] != "program":
                continue
            saved = dict(os.environ)
            os.environ.update(task["env"])
            try:
                record[manager][task["name"]] = view(tf.estimator.RunConfig())
            except ValueError as e:  # A cluster the original refused.
                record[manager][task["name"]] = {"error": f"ValueError: {e}"}
            finally:
                os.environ.clear()
                os.environ.update(saved)
    with open(os.path.join(_HERE, "tf215_cluster_managers.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
