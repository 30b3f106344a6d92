"""The original's module paths that resolve to estimator_lib modules themselves.

Third-party code imports the canned estimators, heads and TPUEstimator by module
(`from tensorflow_estimator.python.estimator.canned import dnn`, `... head import
binary_class_head`, `from tensorflow.python.estimator.canned import metric_keys`),
and sometimes their private helpers; these paths get the real modules, not a copy
of their public names. `aliases.install()` puts each under both
`tensorflow_estimator.python.estimator.` and `tensorflow.python.estimator.`.
"""

import types
from typing import Dict

import tensorflow as tf

from estimator_lib import canned
from estimator_lib import head
from estimator_lib import tpu
from estimator_lib.canned import baseline
from estimator_lib.canned import dnn
from estimator_lib.canned import dnn_linear_combined
from estimator_lib.canned import kmeans
from estimator_lib.canned import linear
from estimator_lib.canned import optimizers
from estimator_lib.canned import rnn
from estimator_lib.canned import saved_model_estimator
from estimator_lib.canned.linear_optimizer import sdca_ops
from estimator_lib.canned.linear_optimizer import sharded_mutable_dense_hashtable
from estimator_lib.canned.timeseries import ar_model as ts_ar_model
from estimator_lib.canned.timeseries import estimators as ts_estimators
from estimator_lib.canned.timeseries import feature_keys as ts_feature_keys
from estimator_lib.canned.timeseries import head as ts_head
from estimator_lib.canned.timeseries import math_utils as ts_math_utils
from estimator_lib.canned.timeseries import model as ts_model
from estimator_lib.canned.timeseries import model_utils as ts_model_utils
from estimator_lib.canned.timeseries import saved_model_utils as ts_saved_model_utils
from estimator_lib.canned.timeseries import state_management as ts_state_management
from estimator_lib.head import base_head
from estimator_lib.head import binary_class_head
from estimator_lib.head import head_utils
from estimator_lib.head import metric_keys
from estimator_lib.head import multi_class_head
from estimator_lib.head import multi_head
from estimator_lib.head import multi_label_head
from estimator_lib.head import parsing
from estimator_lib.head import prediction_keys
from estimator_lib.head import regression_head
from estimator_lib.head import sequential_head
from estimator_lib.head import v1_head
from estimator_lib.head import v1_heads
from estimator_lib.tpu import experimental as tpu_experimental
from estimator_lib.tpu import tpu_config
from estimator_lib.tpu import tpu_estimator
from estimator_lib.tpu import util as tpu_util

HEAD_NAMES = ("Head", "BinaryClassHead", "MultiClassHead", "MultiLabelHead", "MultiHead",
              "RegressionHead", "LogisticRegressionHead", "PoissonRegressionHead")
PARSE_SPEC_NAMES = ("classifier_parse_example_spec", "regressor_parse_example_spec")


def api_names(*, v1: bool) -> Dict[str, object]:
    """The canned classes, heads and parse-spec helpers of tf.estimator / tf.compat.v1."""
    names = dict(canned.TF_COMPAT_V1_ESTIMATOR if v1 else canned.TF_ESTIMATOR)
    names.update({name: getattr(head, name) for name in HEAD_NAMES + PARSE_SPEC_NAMES})
    return names


def _v1_head_module() -> types.ModuleType:
    """`canned/head.py` of the original: the v1 heads under their private names."""

    def binary_logistic_head_with_sigmoid_cross_entropy_loss(**kwargs):
        return v1_heads.make_v1_head(2, **kwargs)

    def multi_class_head_with_softmax_cross_entropy_loss(n_classes, **kwargs):
        v1_head.validate_v1_loss_reduction(
            kwargs.get("loss_reduction", tf.compat.v1.losses.Reduction.SUM))
        return v1_heads.MultiClassHeadV1(n_classes, **kwargs)

    module = types.ModuleType("estimator_lib.legacy.v1_canned_head",
                              "The original's v1 canned heads (canned/head.py).")
    module.__dict__.update(
        _binary_logistic_head_with_sigmoid_cross_entropy_loss=(
            binary_logistic_head_with_sigmoid_cross_entropy_loss),
        _multi_class_head_with_softmax_cross_entropy_loss=(
            multi_class_head_with_softmax_cross_entropy_loss),
        _regression_head=v1_heads.make_v1_regression_head,
        _binary_logistic_or_multi_class_head=v1_heads.make_v1_head,
        _BinaryLogisticHeadWithSigmoidCrossEntropyLoss=v1_heads.BinaryLogisticHeadV1,
        _MultiClassHeadWithSoftmaxCrossEntropyLoss=v1_heads.MultiClassHeadV1,
        _RegressionHeadWithMeanSquaredErrorLoss=v1_heads.RegressionHeadV1,
        LossSpec=v1_head.LossSpec, _Head=v1_head.V1Head)
    return module


def _folder_package(path: str) -> types.ModuleType:
    """An empty package for a folder of the original that has no module of ours.

    `canned.linear_optimizer.python.utils` holds the SDCA modules; its three folders
    must import for `from ...utils import sdca_ops` to.
    """
    name = "tensorflow_estimator.python.estimator." + path
    module = types.ModuleType(name, "A folder of the original; see estimator_lib.compat.")
    module.__path__ = []
    module.__package__ = name
    return module


def real_modules() -> Dict[str, types.ModuleType]:
    """Path under `python.estimator.` -> the module it resolves to."""
    return {
        "canned.baseline": baseline, "canned.dnn": dnn,
        "canned.dnn_linear_combined": dnn_linear_combined, "canned.linear": linear,
        "canned.optimizers": optimizers, "canned.metric_keys": metric_keys,
        "canned.prediction_keys": prediction_keys, "canned.parsing_utils": parsing,
        "canned.head": _v1_head_module(), "canned.rnn": rnn,
        "canned.saved_model_estimator": saved_model_estimator,
        "canned.kmeans": kmeans,
        "canned.linear_optimizer": _folder_package("canned.linear_optimizer"),
        "canned.linear_optimizer.python": _folder_package("canned.linear_optimizer.python"),
        "canned.linear_optimizer.python.utils": _folder_package(
            "canned.linear_optimizer.python.utils"),
        "canned.linear_optimizer.python.utils.sdca_ops": sdca_ops,
        "canned.linear_optimizer.python.utils.sharded_mutable_dense_hashtable": (
            sharded_mutable_dense_hashtable),
        "canned.timeseries.ar_model": ts_ar_model,
        "canned.timeseries.estimators": ts_estimators,
        "canned.timeseries.feature_keys": ts_feature_keys, "canned.timeseries.head": ts_head,
        "canned.timeseries.math_utils": ts_math_utils, "canned.timeseries.model": ts_model,
        "canned.timeseries.model_utils": ts_model_utils,
        "canned.timeseries.saved_model_utils": ts_saved_model_utils,
        "canned.timeseries.state_management": ts_state_management,
        "head.base_head": base_head, "head.binary_class_head": binary_class_head,
        "head.multi_class_head": multi_class_head, "head.multi_label_head": multi_label_head,
        "head.regression_head": regression_head, "head.multi_head": multi_head,
        "head.head_utils": head_utils, "head.sequential_head": sequential_head,
        "tpu": tpu, "tpu.tpu_estimator": tpu_estimator, "tpu.tpu_config": tpu_config,
        "tpu.util": tpu_util, "tpu.experimental": tpu_experimental,
    }
