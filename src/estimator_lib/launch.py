"""`python -m estimator_lib.launch --workers=N [--ps=M] [--chief] [--evaluator] PROG.py
[ARGS...]`: runs a multi-worker or parameter-server job's tasks as local processes.

The entry point only; the launcher is `estimator_lib.launcher` (docs/multi_worker.md).
"""

import sys

from estimator_lib.launcher.main import main

if __name__ == "__main__":
    sys.exit(main())
