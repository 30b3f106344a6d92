"""pytest plugin for TF Lattice's estimators_test.py: synthetic data in place of two
downloads, identical on both sides.

- `tf.keras.utils.get_file('heart.csv', URL)` downloads the UCI heart data: here a
  120-row CSV with the same columns, the label a noisy monotone function of them.
- `sklearn.datasets.load_boston` was removed from scikit-learn 1.2: here 120 rows with
  Boston's 13 feature names, the target a noisy function of them.
"""

import os
import tempfile

import numpy as np
import pandas as pd
import sklearn.datasets
import sklearn.utils
import tensorflow as tf

_ROWS = 120
_DIR = tempfile.mkdtemp(prefix="harness_lattice_")


def _heart_csv():
    rng = np.random.RandomState(0)
    frame = pd.DataFrame({
        "age": rng.randint(29, 78, _ROWS), "sex": rng.randint(0, 2, _ROWS),
        "cp": rng.randint(0, 5, _ROWS), "trestbps": rng.randint(94, 201, _ROWS),
        "chol": rng.randint(126, 565, _ROWS), "fbs": rng.randint(0, 2, _ROWS),
        "restecg": rng.randint(0, 3, _ROWS), "thalach": rng.randint(71, 203, _ROWS),
        "exang": rng.randint(0, 2, _ROWS), "oldpeak": rng.uniform(0, 6.2, _ROWS).round(1),
        "slope": rng.randint(0, 3, _ROWS), "ca": rng.randint(0, 4, _ROWS),
        "thal": rng.choice(["normal", "fixed", "reversible"], _ROWS)})
    score = ((frame["age"] - 50) / 10 + frame["cp"] - (frame["thalach"] - 140) / 20
             + frame["exang"] + frame["oldpeak"] + rng.normal(0, 0.5, _ROWS))
    frame["target"] = (score > score.median()).astype(int)
    path = os.path.join(_DIR, "heart.csv")
    frame.to_csv(path, index=False)
    return path


_HEART = _heart_csv()
_get_file = tf.keras.utils.get_file


def _get_file_offline(fname, origin=None, *args, **kwargs):
    if fname == "heart.csv":
        return _HEART
    return _get_file(fname, origin, *args, **kwargs)


def _load_boston():
    rng = np.random.RandomState(1)
    names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX",
             "PTRATIO", "B", "LSTAT"]
    data = np.column_stack([
        rng.uniform(0, 20, _ROWS), rng.uniform(0, 100, _ROWS), rng.uniform(0, 28, _ROWS),
        rng.randint(0, 2, _ROWS), rng.uniform(0.38, 0.88, _ROWS), rng.uniform(3.5, 8.8, _ROWS),
        rng.uniform(2, 100, _ROWS), rng.uniform(1, 12, _ROWS), rng.randint(1, 25, _ROWS),
        rng.uniform(187, 711, _ROWS), rng.uniform(12, 22, _ROWS), rng.uniform(0, 397, _ROWS),
        rng.uniform(1.7, 38, _ROWS)])
    target = 10 + 4 * data[:, 5] - 0.4 * data[:, 12] - 0.1 * data[:, 0] + rng.normal(0, 1, _ROWS)
    return sklearn.utils.Bunch(data=data, target=target, feature_names=np.array(names))


tf.keras.utils.get_file = _get_file_offline
sklearn.datasets.load_boston = _load_boston
