"""What estimator_lib does not re-provide, each with the alternative to use instead.

The canned estimators (DNNClassifier, LinearRegressor, BoostedTrees*, ...), their
heads, TPUEstimator and the other estimators of the original package are classes
here so that legacy code importing or even subclassing them still loads; building
one raises a NotImplementedError naming what to use instead. `UNSUPPORTED` lists
every such name, and ParameterServerStrategy (which RunConfig rejects), with its
alternative; docs/MIGRATION.md shows the same table.
"""

from typing import Dict, Tuple

_MIGRATION = "See docs/MIGRATION.md in estimator_lib."

_DNN = ("a tf.keras Sequential of Dense layers (your `hidden_units`, then one output "
        "unit per class or target) compiled with the matching loss, trained with "
        "`estimator_lib.model_to_estimator(model)` or `model.fit`")
_LINEAR = ("`tf.keras.experimental.LinearModel` (or one Dense layer over your features) "
           "compiled with the matching loss, through `estimator_lib.model_to_estimator` "
           "or `model.fit`")
_WIDE_DEEP = ("`tf.keras.experimental.WideDeepModel(LinearModel(...), dnn_model)` through "
              "`estimator_lib.model_to_estimator` or `model.fit`")
_BASELINE = ("a custom model_fn for `estimator_lib.Estimator` that learns one bias per "
             "output (the label mean or the class prior)")
_TREES = ("TensorFlow Decision Forests (`tensorflow_decision_forests.keras."
          "GradientBoostedTreesModel`) trained with `model.fit`")
_HEAD = ("computing the loss, predictions and metrics in your model_fn "
         "(tf.compat.v1.losses / tf.compat.v1.metrics) and returning an "
         "`estimator_lib.EstimatorSpec`, or compiling a Keras model with that loss")
_RNN = ("a tf.keras model with tf.keras.layers.LSTM or GRU through "
        "`estimator_lib.model_to_estimator` or `model.fit`")
_TPU = ("Keras `model.fit` or a custom training loop under `tf.distribute.TPUStrategy`; "
        "estimator_lib runs graph-mode sessions on CPUs and GPUs only")
_PARSE_SPEC = ("writing the feature spec dict yourself ({name: tf.io.FixedLenFeature(...)} "
               "plus the label key) for `tf.io.parse_example`")
_KMEANS = "a custom model_fn for `estimator_lib.Estimator`, or scikit-learn's KMeans"
_SDCA = "`tf.keras.experimental.LinearModel` with a Keras optimizer"

# (API name, alternative) for every class this module defines.
_CLASSES: Tuple[Tuple[str, str], ...] = (
    ("DNNClassifier", _DNN), ("DNNRegressor", _DNN), ("DNNEstimator", _DNN),
    ("LinearClassifier", _LINEAR), ("LinearRegressor", _LINEAR),
    ("LinearEstimator", _LINEAR),
    ("DNNLinearCombinedClassifier", _WIDE_DEEP), ("DNNLinearCombinedRegressor", _WIDE_DEEP),
    ("DNNLinearCombinedEstimator", _WIDE_DEEP),
    ("BaselineClassifier", _BASELINE), ("BaselineRegressor", _BASELINE),
    ("BaselineEstimator", _BASELINE),
    ("BoostedTreesClassifier", _TREES), ("BoostedTreesRegressor", _TREES),
    ("BoostedTreesEstimator", _TREES),
    ("Head", _HEAD), ("BinaryClassHead", _HEAD), ("MultiClassHead", _HEAD),
    ("MultiLabelHead", _HEAD), ("MultiHead", _HEAD), ("RegressionHead", _HEAD),
    ("LogisticRegressionHead", _HEAD), ("PoissonRegressionHead", _HEAD),
    ("classifier_parse_example_spec", _PARSE_SPEC),
    ("regressor_parse_example_spec", _PARSE_SPEC),
    ("RNNClassifier", _RNN), ("RNNEstimator", _RNN),
    ("LinearSDCA", _SDCA), ("KMeans", _KMEANS),
    ("TPUEstimator", _TPU), ("TPUEstimatorSpec", _TPU), ("TPUConfig", _TPU),
    ("TPURunConfig", _TPU), ("InputPipelineConfig", _TPU),
)

# Where each name lived in the original API (tf.estimator unless listed).
_LOCATIONS: Dict[str, str] = {
    "RNNClassifier": "tf.estimator.experimental",
    "RNNEstimator": "tf.estimator.experimental",
    "LinearSDCA": "tf.estimator.experimental",
    "KMeans": "tf.compat.v1.estimator.experimental",
    "TPUEstimator": "tf.compat.v1.estimator.tpu",
    "TPUEstimatorSpec": "tf.compat.v1.estimator.tpu",
    "TPUConfig": "tf.compat.v1.estimator.tpu",
    "TPURunConfig": "tf.compat.v1.estimator.tpu",
    "InputPipelineConfig": "tf.compat.v1.estimator.tpu",
}


def _api_name(name: str) -> str:
    location = _LOCATIONS.get(name, "tf.estimator")
    # TPU's RunConfig was tf.compat.v1.estimator.tpu.RunConfig.
    return f"{location}.{'RunConfig' if name == 'TPURunConfig' else name}"


def message(name: str) -> str:
    """The NotImplementedError text for the unsupported API `name` (a class name here)."""
    alternative = dict(_CLASSES)[name]
    return (f"{_api_name(name)} is not supported by estimator_lib: TensorFlow 2.16 removed "
            f"it with tf.estimator, and estimator_lib re-provides the Estimator core, not "
            f"the canned models. Use {alternative} instead. {_MIGRATION}")


def _make_unsupported(name: str, alternative: str) -> type:

    def __new__(cls, *args, **kwargs):
        del cls, args, kwargs
        raise NotImplementedError(message(name))

    doc = f"Not supported; building one raises NotImplementedError. Use {alternative}."
    return type(name, (), {"__new__": __new__, "__doc__": doc, "__module__": __name__})


for _name, _alternative in _CLASSES:
    globals()[_name] = _make_unsupported(_name, _alternative)
del _name, _alternative

PARAMETER_SERVER_STRATEGY = (
    "`tf.distribute.MirroredStrategy` on one machine or "
    "`tf.distribute.MultiWorkerMirroredStrategy` with TF_CONFIG across machines (in "
    "`RunConfig(train_distribute=...)`), or Keras `model.fit` with "
    "`tf.distribute.experimental.ParameterServerStrategy` and a ClusterCoordinator")

# Every unsupported API name -> the alternative; the table in docs/MIGRATION.md.
UNSUPPORTED: Dict[str, str] = dict(
    [(_api_name(name), alternative) for name, alternative in _CLASSES]
    + [("RunConfig(train_distribute=ParameterServerStrategy(...))", PARAMETER_SERVER_STRATEGY)])

# Class names by the namespace they belong in, for estimator_lib.compat.
CANNED_NAMES = tuple(name for name, _ in _CLASSES if name not in _LOCATIONS)
EXPERIMENTAL_NAMES = ("RNNClassifier", "RNNEstimator", "LinearSDCA")
V1_EXPERIMENTAL_NAMES = EXPERIMENTAL_NAMES + ("KMeans",)
TPU_NAMES = {"TPUEstimator": "TPUEstimator", "TPUEstimatorSpec": "TPUEstimatorSpec",
             "TPUConfig": "TPUConfig", "RunConfig": "TPURunConfig",
             "InputPipelineConfig": "InputPipelineConfig"}
