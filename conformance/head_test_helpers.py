"""The test helpers the original's head/*_test.py call as `head_utils._name` (acc side only).

The original's head/head_utils.py holds `binary_or_multi_class_head` (which estimator_lib's
head_utils provides) and, beside it, four helpers only its tests use: `_DEFAULT_SERVING_KEY`,
`_initialize_variables`, `_assert_simple_summaries` and `_assert_no_hooks`. The head tests
import that module `as test_lib` and call them. They assert on a test case and contain no head
code, so they are test support in the sense of run_file.py's TEST_SUPPORT: extend.py copies this
file into the harness and run_file.py sets each name on the aliased head_utils module when the
alias lacks it. Written here to the same contract (the original's file is not in later/).
"""

import tensorflow as tf

_DEFAULT_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY


def _initialize_variables(test_case, scaffold):
    """Finalizes a v1 Scaffold and runs its init ops in the default session."""
    scaffold.finalize()
    test_case.assertIsNone(scaffold.init_feed_dict)
    test_case.assertIsNone(scaffold.init_fn)
    scaffold.init_op.run()
    scaffold.ready_for_local_init_op.eval()
    scaffold.local_init_op.run()
    scaffold.ready_op.eval()
    test_case.assertIsNotNone(scaffold.saver)


def _assert_simple_summaries(test_case, expected_summaries, summary_str, tol=1e-6):
    """Asserts a serialized Summary holds exactly these tag -> simple_value pairs."""
    summary = tf.compat.v1.summary.Summary()
    summary.ParseFromString(summary_str)
    test_case.assertAllClose(expected_summaries,
                             {v.tag: v.simple_value for v in summary.value},
                             rtol=tol, atol=tol)


def _assert_no_hooks(test_case, spec):
    test_case.assertAllEqual([], spec.training_chief_hooks)
    test_case.assertAllEqual([], spec.training_hooks)


NAMES = ("_DEFAULT_SERVING_KEY", "_initialize_variables", "_assert_simple_summaries",
         "_assert_no_hooks")
