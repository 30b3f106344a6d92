"""tf.compat.v1.estimator.tpu.experimental: EmbeddingConfigSpec, kept so imports load.

TPU embeddings need a TPU; TPUEstimator(embedding_config_spec=...) raises a
ValueError that names the CPU/GPU alternative.
"""


class EmbeddingConfigSpec:
    """Holds the original's arguments unchecked; TPUEstimator refuses it (see there)."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs
