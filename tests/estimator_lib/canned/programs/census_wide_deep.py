"""The official r1 census program's shape: a v1 DNNLinearCombinedClassifier over wide
(categorical, hashed, crossed, bucketized) and deep (embedding, indicator, numeric)
columns, CSV input through tf.data, train/evaluate rounds and a tf.Example export."""

import os
import sys

import numpy as np
import tensorflow as tf

from report import report

COLUMNS = ["age", "education", "marital_status", "occupation", "hours_per_week",
           "income_bracket"]
DEFAULTS = [[0.0], [""], [""], [""], [0.0], [""]]
fc = tf.compat.v1.feature_column


def write_csv(path, n, seed):
    rng = np.random.RandomState(seed)
    with open(path, "w") as f:
        for _ in range(n):
            age = rng.randint(17, 90)
            education = rng.choice(["Bachelors", "HS-grad", "Masters", "Doctorate"])
            hours = rng.randint(10, 80)
            income = ">50K" if (age > 40 and hours > 40) or education == "Doctorate" else "<=50K"
            f.write(f"{age},{education},{rng.choice(['Married', 'Never-married'])},"
                    f"{rng.choice(['Tech', 'Sales', 'Craft'])},{hours},{income}\n")


def build_model_columns():
    age = fc.numeric_column("age")
    hours = fc.numeric_column("hours_per_week")
    education = fc.categorical_column_with_vocabulary_list(
        "education", ["Bachelors", "HS-grad", "Masters", "Doctorate"])
    marital = fc.categorical_column_with_vocabulary_list(
        "marital_status", ["Married", "Never-married"])
    occupation = fc.categorical_column_with_hash_bucket("occupation", hash_bucket_size=100)
    age_buckets = fc.bucketized_column(age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60])
    wide = [education, marital, occupation, age_buckets,
            fc.crossed_column(["education", "occupation"], hash_bucket_size=100),
            fc.crossed_column([age_buckets, "education", "occupation"], hash_bucket_size=100)]
    deep = [age, hours, fc.indicator_column(education), fc.indicator_column(marital),
            fc.embedding_column(occupation, dimension=8)]
    return wide, deep


def input_fn(data_file, num_epochs, shuffle, batch_size):
    def parse_csv(value):
        columns = tf.io.decode_csv(value, record_defaults=DEFAULTS)
        features = dict(zip(COLUMNS, columns))
        labels = features.pop("income_bracket")
        return features, tf.equal(labels, ">50K")

    dataset = tf.data.TextLineDataset(data_file)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1000, seed=0)
    return dataset.map(parse_csv).repeat(num_epochs).batch(batch_size)


def main(model_dir):
    data_dir = os.path.join(model_dir, "data")
    os.makedirs(data_dir, exist_ok=True)
    train_file, test_file = os.path.join(data_dir, "adult.data"), os.path.join(data_dir,
                                                                                "adult.test")
    write_csv(train_file, 400, 0)
    write_csv(test_file, 100, 1)
    wide, deep = build_model_columns()
    run_config = tf.estimator.RunConfig().replace(
        session_config=tf.compat.v1.ConfigProto(device_count={"GPU": 0}))
    model = tf.compat.v1.estimator.DNNLinearCombinedClassifier(
        model_dir=model_dir, linear_feature_columns=wide, dnn_feature_columns=deep,
        dnn_hidden_units=[100, 75, 50, 25], config=run_config)
    for n in range(2):
        model.train(input_fn=lambda: input_fn(train_file, 2, True, 40))
        results = model.evaluate(input_fn=lambda: input_fn(test_file, 1, False, 40))
        print("Results at epoch", (n + 1) * 2)
        for key in sorted(results):
            print("%s: %s" % (key, results[key]))
    predictions = list(model.predict(input_fn=lambda: input_fn(test_file, 1, False, 40)))
    feature_spec = fc.make_parse_example_spec(wide + deep)
    export_dir = model.export_saved_model(
        os.path.join(model_dir, "export"),
        tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec))
    report(model, results, predictions, export_dir)


if __name__ == "__main__":
    main(sys.argv[1])
