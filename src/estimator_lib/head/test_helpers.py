"""The original `head/head_utils.py`'s test helpers: the heads' own tests call them.

head/head_utils.py imports them, so they stand at the original's path
(`head.head_utils._initialize_variables`, ...) after compat.install(): the original's
head tests, and libraries' tests written after them, import them there.
"""

import tensorflow as tf

_DEFAULT_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY


def _initialize_variables(test_case, scaffold):
    """Finalizes `scaffold` and runs its init ops in the default session, checking it."""
    scaffold.finalize()
    test_case.assertIsNone(scaffold.init_feed_dict)
    test_case.assertIsNone(scaffold.init_fn)
    scaffold.init_op.run()
    scaffold.ready_for_local_init_op.eval()
    scaffold.local_init_op.run()
    scaffold.ready_op.eval()
    test_case.assertIsNotNone(scaffold.saver)


def _assert_simple_summaries(test_case, expected_summaries, summary_str, tol=1e-6):
    """Asserts the serialized Summary's simple values are `expected_summaries` ({tag: value})."""
    summary = tf.compat.v1.summary.Summary()
    summary.ParseFromString(summary_str)
    test_case.assertAllClose(expected_summaries,
                             {v.tag: v.simple_value for v in summary.value},
                             rtol=tol, atol=tol)


def _assert_no_hooks(test_case, spec):
    """Asserts the spec has no training hooks (chief's or workers')."""
    test_case.assertAllEqual([], spec.training_chief_hooks)
    test_case.assertAllEqual([], spec.training_hooks)
