"""What a program's run looked like, as one JSON line: shared by the canned programs.

Runs under the original (TF 2.15 + tensorflow-estimator) and under estimator_lib,
so it uses only what both have.
"""

import json

import numpy as np
import tensorflow as tf


def _plain(value):
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape)}
    return type(value).__name__


def report(estimator, evaluation, predictions, export_dir=None):
    """Prints `RESULT {...}`: evaluate keys, predict keys and kinds, variables, signatures."""
    result = {
        "evaluate_keys": sorted(evaluation),
        # MultiHead predictions are keyed by (head name, key) tuples.
        "predict_keys": {"/".join(k) if isinstance(k, tuple) else k: _plain(v)
                         for k, v in predictions[0].items()},
        "variable_names": sorted(estimator.get_variable_names()),
    }
    if export_dir is not None:
        loaded = tf.saved_model.load(export_dir.decode() if isinstance(export_dir, bytes)
                                     else export_dir)
        result["signatures"] = sorted(loaded.signatures)
        result["signature_outputs"] = {
            name: sorted(loaded.signatures[name].structured_outputs)
            for name in sorted(loaded.signatures)}
    print("RESULT " + json.dumps(result, sort_keys=True))
