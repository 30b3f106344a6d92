"""pytest plugin for TF-Ranking 0.5.5's estimator tests, identical on both sides.

The tests were written for `tf.test.main()`, which parses absl flags: the experiment
tests read `--test_tmpdir` (through `tf.compat.v1.test.get_temp_dir()`), so the flags
are parsed here as that main would (4 of 58 fail on the original without it).
"""

from absl import flags


def pytest_configure(config):
    del config
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
