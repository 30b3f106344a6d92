"""Which of estimator_lib's exceptions are the user's to fix, not bugs.

The binaries (bin/cli.py) and the legacy-program runner (legacy/runner.py) print
these as one line and exit 1; any other exception keeps its traceback. Named as
(module, class) and looked up only in modules already imported, so that handling
an error never loads TensorFlow.
"""

import sys
from typing import Tuple, Type

USER_ERRORS = (
    ("estimator_lib.datasets.errors", "BadDataError"),
    ("estimator_lib.datasets.errors", "DownloadError"),
    ("estimator_lib.training.model_dir_lock", "ModelDirInUseError"),
    ("estimator_lib.training.model_dir_lock", "ModelDirNotWritableError"),
)
PREEMPTED = ("estimator_lib.training.preemption", "Preempted")
INTERRUPTED = ("estimator_lib.training.preemption", "Interrupted")


def loaded(names) -> Tuple[Type[BaseException], ...]:
    """The classes of `names` ((module, class) pairs) whose module is imported."""
    return tuple(getattr(sys.modules[module], name) for module, name in names
                 if module in sys.modules)


def one_line(error: BaseException) -> str:
    """The error's message on one line (some messages hold newlines)."""
    text = " ".join(part.strip() for part in str(error).splitlines() if part.strip())
    return text or type(error).__name__
