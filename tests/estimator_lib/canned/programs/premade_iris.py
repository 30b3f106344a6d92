"""The premade-estimator tutorial's shape: DNNClassifier on iris-like numeric features."""

import sys

import numpy as np
import tensorflow as tf

from report import report

FEATURES = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def load(n, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 3, n)
    x = rng.randn(n, 4).astype(np.float32) + labels[:, None].astype(np.float32)
    return {name: x[:, i] for i, name in enumerate(FEATURES)}, labels


def input_fn(features, labels, training=True, batch_size=16):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    if training:
        dataset = dataset.shuffle(100).repeat()
    return dataset.batch(batch_size)


def main(model_dir):
    train_x, train_y = load(120, 0)
    test_x, test_y = load(30, 1)
    columns = [tf.feature_column.numeric_column(key=key) for key in FEATURES]
    classifier = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[30, 10],
                                            n_classes=3, model_dir=model_dir)
    classifier.train(input_fn=lambda: input_fn(train_x, train_y), steps=50)
    evaluation = classifier.evaluate(input_fn=lambda: input_fn(test_x, test_y, training=False))
    print("\nTest set accuracy: {accuracy:0.3f}\n".format(**evaluation))
    predict_x = {"SepalLength": [5.1, 5.9, 6.9], "SepalWidth": [3.3, 3.0, 3.1],
                 "PetalLength": [1.7, 4.2, 5.4], "PetalWidth": [0.5, 1.5, 2.1]}
    predictions = list(classifier.predict(input_fn=lambda: tf.data.Dataset.from_tensor_slices(
        {k: np.array(v, np.float32) for k, v in predict_x.items()}).batch(16)))
    for pred_dict in predictions:
        class_id = pred_dict["class_ids"][0]
        print("Prediction is {} ({:.1f}%)".format(class_id,
                                                  100 * pred_dict["probabilities"][class_id]))
    spec = tf.feature_column.make_parse_example_spec(columns)
    export_dir = classifier.export_saved_model(
        model_dir + "/export", tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    report(classifier, evaluation, predictions, export_dir)


if __name__ == "__main__":
    main(sys.argv[1])
