"""tf.compat.v1.estimator.tpu.experimental: EmbeddingConfigSpec, kept so imports load.

TPU embeddings need a TPU; TPUEstimator(embedding_config_spec=...) raises a
ValueError that names the CPU/GPU alternative.
"""

import collections

_FIELDS = ("feature_columns", "tensor_core_feature_columns", "optimization_parameters", "clipping_limit",
           "pipeline_execution_with_tensor_core", "experimental_gradient_multiplier_fn",
           "feature_to_config_dict", "table_to_config_dict", "partition_strategy",
           "profile_data_directory")


class EmbeddingConfigSpec(collections.namedtuple("EmbeddingConfigSpec", _FIELDS)):
    """The original's named tuple of TPU embedding settings, held unchecked.

    Its checks need TensorFlow's TPU embedding library, which TF 2.21 no longer has;
    TPUEstimator refuses the spec (see there). `tensor_core_feature_columns` (the
    original's split of the columns by lookup device) is [] when columns are given.

    Examples:
        Held as given; TPUEstimator refuses it and says what to use instead:

        >>> import tempfile
        >>> from estimator_lib import tpu
        >>> spec = tpu.experimental.EmbeddingConfigSpec(partition_strategy="mod")
        >>> spec.partition_strategy, spec.feature_columns
        ('mod', None)
        >>> tpu.TPUEstimator(lambda features, labels, mode, params: None,
        ...                  config=tpu.RunConfig(model_dir=tempfile.mkdtemp()),
        ...                  use_tpu=False, train_batch_size=4, embedding_config_spec=spec)
        Traceback (most recent call last):
            ...
        ValueError: TPUEstimator(embedding_config_spec=...) is not supported by estimator_lib: ...
    """

    __slots__ = ()

    def __new__(cls, feature_columns=None, optimization_parameters=None, clipping_limit=None,
                pipeline_execution_with_tensor_core=False,
                experimental_gradient_multiplier_fn=None, feature_to_config_dict=None,
                table_to_config_dict=None, partition_strategy="div",
                profile_data_directory=None):
        return super().__new__(
            cls, feature_columns, [] if feature_columns else None, optimization_parameters,
            clipping_limit, pipeline_execution_with_tensor_core,
            experimental_gradient_multiplier_fn,
            feature_to_config_dict, table_to_config_dict, partition_strategy,
            profile_data_directory)
