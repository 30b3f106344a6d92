"""The SDCA solver behind `LinearSDCA` (the original's canned/linear_optimizer/python/utils).

sdca_ops.py: SdcaModel and SparseFeatureColumn; sdca_losses.py: its predictions, losses
and duality gap; partitioned_weights.py: weights split by a partitioner;
sharded_mutable_dense_hashtable.py: the example-state table.
"""
