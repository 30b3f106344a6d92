"""The linear-model tutorial's shape: LinearClassifier over categorical, numeric and
crossed columns, from a pandas DataFrame."""

import sys

import numpy as np
import pandas as pd
import tensorflow as tf

from report import report


def load(n, seed):
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame({
        "sex": rng.choice(["male", "female"], n), "class": rng.choice(["First", "Second",
                                                                       "Third"], n),
        "deck": rng.choice(list("ABCDEF"), n), "alone": rng.choice(["y", "n"], n),
        "age": rng.uniform(1, 80, n).astype(np.float32),
        "fare": rng.uniform(5, 100, n).astype(np.float32)})
    survived = ((frame["sex"] == "female") | (frame["age"] < 10)).astype(np.int64)
    return frame, survived


def make_input_fn(data_df, label_df, num_epochs=10, shuffle=True, batch_size=32):
    def input_function():
        ds = tf.data.Dataset.from_tensor_slices((dict(data_df), label_df))
        if shuffle:
            ds = ds.shuffle(1000)
        return ds.batch(batch_size).repeat(num_epochs)
    return input_function


def main(model_dir):
    dftrain, y_train = load(200, 0)
    dfeval, y_eval = load(60, 1)
    feature_columns = []
    for name in ["sex", "class", "deck", "alone"]:
        vocabulary = sorted(dftrain[name].unique())
        feature_columns.append(
            tf.feature_column.categorical_column_with_vocabulary_list(name, vocabulary))
    for name in ["age", "fare"]:
        feature_columns.append(tf.feature_column.numeric_column(name, dtype=tf.float32))
    age_buckets = tf.feature_column.bucketized_column(
        tf.feature_column.numeric_column("age"), boundaries=[10, 20, 40, 60])
    age_x_gender = tf.feature_column.crossed_column([age_buckets, "sex"], hash_bucket_size=100)
    linear_est = tf.estimator.LinearClassifier(
        feature_columns=feature_columns + [age_x_gender], model_dir=model_dir)
    linear_est.train(make_input_fn(dftrain, y_train), max_steps=40)
    result = linear_est.evaluate(make_input_fn(dfeval, y_eval, num_epochs=1, shuffle=False))
    print(result)
    predictions = list(linear_est.predict(make_input_fn(dfeval, y_eval, num_epochs=1,
                                                        shuffle=False)))
    probs = pd.Series([pred["probabilities"][1] for pred in predictions])
    print(probs.describe())
    report(linear_est, result, predictions)


if __name__ == "__main__":
    main(sys.argv[1])
