"""A Saver for v1 canned models, whose variables are partitioned.

The v1 estimators create their variables under the original's
`min_max_variable_partitioner` (one part each without parameter servers), so
the graph's `dnn/logits/kernel/part_0` is saved as `dnn/logits/kernel`, as the
original saved it. estimator_lib's checkpoint-compatibility check compares the
graph's variable op names with the checkpoint and would refuse such a
model_dir; the check is skipped when the spec brings its own Saver, so the v1
model_fns give one, built as the Estimator's default Saver is.
"""

import tensorflow as tf


def _has_partitioned_variables() -> bool:
    return any(getattr(v, "_save_slice_info", None) is not None
               for v in tf.compat.v1.global_variables())


def with_partition_aware_saver(spec, config):
    """`spec` with a default-like Saver in its scaffold when the graph has partitioned variables."""
    scaffold = spec.scaffold
    if (not _has_partitioned_variables() or scaffold.saver is not None
            or tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS)):
        return spec
    saver = tf.compat.v1.train.Saver(
        sharded=True,
        max_to_keep=config.keep_checkpoint_max if config else 5,
        keep_checkpoint_every_n_hours=(config.keep_checkpoint_every_n_hours if config
                                       else 10000),
        save_relative_paths=True)  # Built now: export restores with it unfinalized.
    return spec._replace(scaffold=tf.compat.v1.train.Scaffold(
        saver=saver, copy_from_scaffold=scaffold))
