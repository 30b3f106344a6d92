"""The canned classes' constructor arguments and defaults are the original's."""

import inspect

import tensorflow as tf

from estimator_lib import canned

_DNN = ["hidden_units", "feature_columns", "model_dir"]
_TAIL_V1 = ["config", "warm_start_from", "loss_reduction", "batch_norm"]
_COMBINED = ["model_dir", "linear_feature_columns", "linear_optimizer", "dnn_feature_columns",
             "dnn_optimizer", "dnn_hidden_units", "dnn_activation_fn", "dnn_dropout"]
# Recorded with inspect.signature on tensorflow-estimator 2.15.0.
EXPECTED = {
    "DNNClassifier": _DNN + ["n_classes", "weight_column", "label_vocabulary", "optimizer",
                             "activation_fn", "dropout", "input_layer_partitioner"] + _TAIL_V1,
    "DNNClassifierV2": _DNN + ["n_classes", "weight_column", "label_vocabulary", "optimizer",
                               "activation_fn", "dropout"] + _TAIL_V1,
    "DNNRegressor": _DNN + ["label_dimension", "weight_column", "optimizer", "activation_fn",
                            "dropout", "input_layer_partitioner"] + _TAIL_V1,
    "DNNRegressorV2": _DNN + ["label_dimension", "weight_column", "optimizer", "activation_fn",
                              "dropout"] + _TAIL_V1,
    "DNNEstimator": ["head"] + _DNN + ["optimizer", "activation_fn", "dropout",
                                       "input_layer_partitioner", "config", "warm_start_from",
                                       "batch_norm"],
    "DNNEstimatorV2": ["head"] + _DNN + ["optimizer", "activation_fn", "dropout", "config",
                                         "warm_start_from", "batch_norm"],
    "LinearClassifier": ["feature_columns", "model_dir", "n_classes", "weight_column",
                         "label_vocabulary", "optimizer", "config", "partitioner",
                         "warm_start_from", "loss_reduction", "sparse_combiner"],
    "LinearClassifierV2": ["feature_columns", "model_dir", "n_classes", "weight_column",
                           "label_vocabulary", "optimizer", "config", "warm_start_from",
                           "loss_reduction", "sparse_combiner"],
    "LinearRegressor": ["feature_columns", "model_dir", "label_dimension", "weight_column",
                        "optimizer", "config", "partitioner", "warm_start_from",
                        "loss_reduction", "sparse_combiner"],
    "LinearRegressorV2": ["feature_columns", "model_dir", "label_dimension", "weight_column",
                          "optimizer", "config", "warm_start_from", "loss_reduction",
                          "sparse_combiner"],
    "LinearEstimator": ["head", "feature_columns", "model_dir", "optimizer", "config",
                        "partitioner", "sparse_combiner", "warm_start_from"],
    "LinearEstimatorV2": ["head", "feature_columns", "model_dir", "optimizer", "config",
                          "sparse_combiner", "warm_start_from"],
    "DNNLinearCombinedClassifier": _COMBINED + [
        "n_classes", "weight_column", "label_vocabulary", "input_layer_partitioner", "config",
        "warm_start_from", "loss_reduction", "batch_norm", "linear_sparse_combiner"],
    "DNNLinearCombinedClassifierV2": _COMBINED + [
        "n_classes", "weight_column", "label_vocabulary", "config", "warm_start_from",
        "loss_reduction", "batch_norm", "linear_sparse_combiner"],
    "DNNLinearCombinedRegressor": _COMBINED + [
        "label_dimension", "weight_column", "input_layer_partitioner", "config",
        "warm_start_from", "loss_reduction", "batch_norm", "linear_sparse_combiner"],
    "DNNLinearCombinedRegressorV2": _COMBINED + [
        "label_dimension", "weight_column", "config", "warm_start_from", "loss_reduction",
        "batch_norm", "linear_sparse_combiner"],
    "DNNLinearCombinedEstimator": ["head"] + _COMBINED + [
        "input_layer_partitioner", "config", "batch_norm", "linear_sparse_combiner"],
    "DNNLinearCombinedEstimatorV2": ["head"] + _COMBINED + [
        "config", "batch_norm", "linear_sparse_combiner"],
    "BaselineClassifier": ["model_dir", "n_classes", "weight_column", "label_vocabulary",
                           "optimizer", "config", "loss_reduction"],
    "BaselineClassifierV2": ["model_dir", "n_classes", "weight_column", "label_vocabulary",
                             "optimizer", "config", "loss_reduction"],
    "BaselineRegressor": ["model_dir", "label_dimension", "weight_column", "optimizer",
                          "config", "loss_reduction"],
    "BaselineRegressorV2": ["model_dir", "label_dimension", "weight_column", "optimizer",
                            "config", "loss_reduction"],
    "BaselineEstimator": ["head", "model_dir", "optimizer", "config"],
    "BaselineEstimatorV2": ["head", "model_dir", "optimizer", "config"],
}


class ApiTest(tf.test.TestCase):

    def test_constructor_arguments_in_the_originals_order(self):
        for name, expected in EXPECTED.items():
            params = list(inspect.signature(getattr(canned, name).__init__).parameters)[1:]
            self.assertEqual(expected, params, msg=name)

    def test_defaults(self):
        def sig(name):
            return inspect.signature(getattr(canned, name).__init__).parameters

        self.assertEqual("weighted_sum", sig("DNNClassifier")["loss_reduction"].default)
        self.assertEqual("sum_over_batch_size",
                         sig("DNNClassifierV2")["loss_reduction"].default)
        self.assertEqual("Adagrad", sig("DNNRegressorV2")["optimizer"].default)
        self.assertEqual("Ftrl", sig("LinearClassifier")["optimizer"].default)
        self.assertEqual("Ftrl", sig("BaselineRegressorV2")["optimizer"].default)
        self.assertIs(tf.nn.relu, sig("DNNClassifier")["activation_fn"].default)

    def test_wiring_tables(self):
        self.assertIs(canned.DNNClassifierV2, canned.TF_ESTIMATOR["DNNClassifier"])
        self.assertIs(canned.BaselineEstimator,
                      canned.TF_COMPAT_V1_ESTIMATOR["BaselineEstimator"])
        self.assertLen(canned.TF_ESTIMATOR, 12)
        self.assertEqual("estimator_lib.canned.dnn",
                         canned.MODULES["tensorflow_estimator.python.estimator.canned.dnn"])
