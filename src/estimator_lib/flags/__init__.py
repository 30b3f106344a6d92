"""Every absl flag of the estimator_lib binaries, defined once (flags/definitions.py)."""
