"""The training jobs the binaries and benchmarks run: models, inputs, devices, reports.

`bin/` mains parse flags and call these; nothing here reads a flag.
"""
