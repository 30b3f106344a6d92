"""A head inside an Estimator: train, evaluate, predict and export end to end."""

import os

import numpy as np
import tensorflow as tf

import estimator_lib
from estimator_lib.head import BinaryClassHead

_X = np.arange(8, dtype=np.float32).reshape(8, 1)
_Y = np.array([[0], [0], [1], [0], [1], [1], [1], [0]], np.int64)

# tensorflow-estimator 2.15, the same model_fn and input_fn: evaluate() after train(steps=3)
# (the input ends after 2 batches, so global_step is 2).
_EXPECTED_EVAL = {
    "accuracy": 0.5833333134651184,
    "accuracy/positive_threshold_0.6": 0.5833333134651184,
    "accuracy_baseline": 0.5833333134651184,
    "auc": 0.4285714030265808,
    "auc_precision_recall": 0.4965255856513977,
    "average_loss": 0.7243872880935669,
    "global_step": 2,
    "label/mean": 0.5833333134651184,
    "loss": 3.2597427368164062,
    "precision": 0.5833333134651184,
    "precision/positive_threshold_0.6": 0.6000000238418579,
    "prediction/mean": 0.6972967982292175,
    "recall": 1.0,
    "recall/positive_threshold_0.6": 0.8571428656578064,
}


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": _X, "w": _X + 1.}, _Y)).batch(4)


def _model_fn(features, labels, mode):
    head = BinaryClassHead(weight_column="w", thresholds=[0.6])
    logits = tf.compat.v1.layers.dense(
        features["x"], 1, kernel_initializer=tf.compat.v1.constant_initializer(0.1),
        bias_initializer=tf.compat.v1.zeros_initializer())
    optimizer = tf.keras.optimizers.legacy.SGD(0.05)
    optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()
    return head.create_estimator_spec(
        features=features, mode=mode, logits=logits, labels=labels, optimizer=optimizer,
        trainable_variables=tf.compat.v1.trainable_variables())


class EstimatorHeadTest(tf.test.TestCase):

    def test_train_evaluate_predict_export(self):
        estimator = estimator_lib.Estimator(_model_fn, model_dir=self.get_temp_dir())
        estimator.train(_input_fn, steps=3)
        self.assertAllClose(_EXPECTED_EVAL, estimator.evaluate(_input_fn))
        prediction = next(iter(estimator.predict(_input_fn)))
        self.assertCountEqual(
            ["all_class_ids", "all_classes", "class_ids", "classes", "logistic", "logits",
             "probabilities"], prediction)
        # A tf.Example receiver: classify and regress signatures need serialized input.
        receiver = estimator_lib.export.build_parsing_serving_input_receiver_fn(
            {"x": tf.io.FixedLenFeature([1], tf.float32)})
        export_dir = estimator.export_saved_model(
            os.path.join(self.get_temp_dir(), "export"), receiver)
        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
            meta_graph = tf.compat.v1.saved_model.loader.load(sess, ["serve"], export_dir)
        signatures = {k: (v.method_name, sorted(v.outputs))
                      for k, v in meta_graph.signature_def.items()}
        # tensorflow-estimator 2.15 exports the same four signatures.
        self.assertEqual({
            "serving_default": ("tensorflow/serving/classify", ["classes", "scores"]),
            "classification": ("tensorflow/serving/classify", ["classes", "scores"]),
            "regression": ("tensorflow/serving/regress", ["outputs"]),
            "predict": ("tensorflow/serving/predict", sorted(prediction)),
        }, signatures)

if __name__ == "__main__":
    tf.test.main()
