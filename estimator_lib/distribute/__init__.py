"""tf.distribute plumbing: replicas, per-replica specs, multi-worker roles and waits."""
