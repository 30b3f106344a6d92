"""pytest plugin for TF-GAN 2.1.0's estimator tests, identical on both sides.

- The tests were written for `tf.test.main()`, which parses absl flags; some read
  `--use_tpu` (default False), so the flags are parsed here as that main would.
- TF-GAN 2.1.0 calls `inspect.getargspec`, removed in Python 3.11: given back here as
  the Python 3.10 function was (getfullargspec's first four fields).
"""

import collections
import inspect

from absl import flags

_ArgSpec = collections.namedtuple("ArgSpec", "args varargs keywords defaults")


def _getargspec(func):
    spec = inspect.getfullargspec(func)
    return _ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


if not hasattr(inspect, "getargspec"):
    inspect.getargspec = _getargspec


def pytest_configure(config):
    del config
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
