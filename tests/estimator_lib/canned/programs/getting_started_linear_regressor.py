"""The getting-started LinearRegressor: numpy_input_fn to train, pandas_input_fn to
evaluate and predict (tf.compat.v1.estimator.inputs)."""

import sys

import numpy as np
import pandas as pd
import tensorflow as tf

from report import report


def main(model_dir):
    x_train = np.array([1., 2., 3., 4.], np.float32)
    y_train = np.array([0., -1., -2., -3.], np.float32)
    feature_columns = [tf.feature_column.numeric_column("x", shape=[1])]
    estimator = tf.estimator.LinearRegressor(feature_columns=feature_columns,
                                             model_dir=model_dir)
    input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": x_train}, y_train, batch_size=4, num_epochs=None, shuffle=True)
    estimator.train(input_fn=input_fn, steps=200)
    frame = pd.DataFrame({"x": [2., 5., 8., 1.]})
    eval_input_fn = tf.compat.v1.estimator.inputs.pandas_input_fn(
        frame, pd.Series([-1.01, -4.1, -7., 0.]), batch_size=4, num_epochs=1, shuffle=False)
    metrics = estimator.evaluate(input_fn=eval_input_fn)
    print("eval metrics: %r" % metrics)
    predictions = list(estimator.predict(tf.compat.v1.estimator.inputs.pandas_input_fn(
        frame, batch_size=4, num_epochs=1, shuffle=False)))
    report(estimator, metrics, predictions)


if __name__ == "__main__":
    main(sys.argv[1])
