"""The `python -m` binaries: the only code that reads flags."""
