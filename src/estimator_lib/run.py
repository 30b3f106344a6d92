"""`python -m estimator_lib.run SCRIPT [ARGS...]`: runs a legacy program unchanged.

The entry point only; the runner is `estimator_lib.legacy.runner`.
"""

import sys

from estimator_lib.legacy.runner import main

if __name__ == "__main__":
    sys.exit(main())
