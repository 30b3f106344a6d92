"""tf.distribute plumbing: the job's shape, replicas, per-replica specs, multi-worker
roles and waits.

Importing it bounds MultiWorkerMirroredStrategy's wait for the cluster, once, for the
whole process (`cluster_wait.install`; tf_internals/patches.py, patch 4).
"""

from estimator_lib.distribute import cluster_wait as _cluster_wait

_cluster_wait.install()
