"""Every absl flag, defined once, with its validator beside it.

Imported only by estimator_lib/bin/. Each holder is named like the keyword it feeds.
"""

from absl import flags as absl_flags

DATASETS = ("synthetic", "fashion_mnist")
MODELS = ("cnn",)

MODEL_DIR = absl_flags.DEFINE_string(
    "model_dir", None, "Where checkpoints and summaries go (default: a new temporary folder).")
DATASET = absl_flags.DEFINE_enum(
    "dataset", "synthetic", DATASETS,
    "Input data: 'synthetic' (embedded Fashion-MNIST-shaped data with a learnable signal, "
    "offline) or 'fashion_mnist' (the IDX files in --data_dir or the Keras cache).")
DATA_DIR = absl_flags.DEFINE_string(
    "data_dir", None, "Folder holding the dataset's files (fashion_mnist).")
MODEL = absl_flags.DEFINE_enum(
    "model", "cnn", MODELS,
    "Model: 'cnn' is the seed program's Fashion-MNIST CNN (Conv2D 32/64/64, Dense 64, "
    "softmax 10).")
BATCH_SIZE = absl_flags.DEFINE_integer(
    "batch_size", 64,
    "Examples per step on EACH replica (the Estimator input_fn contract); the global batch "
    "is batch_size x num_devices.", lower_bound=1)
TRAIN_STEPS = absl_flags.DEFINE_integer(
    "train_steps", 100, "Global steps to train (max_steps).", lower_bound=1)
NUM_DEVICES = absl_flags.DEFINE_integer(
    "num_devices", 1,
    "Replicas for MirroredStrategy: GPUs when present, else logical CPU devices (which share "
    "the same cores, so they show correctness, not speed-up).", lower_bound=1)
EVAL_STEPS = absl_flags.DEFINE_integer(
    "eval_steps", 10, "Batches to evaluate after training (0: skip evaluation).",
    lower_bound=0)
EXPORT_DIR = absl_flags.DEFINE_string(
    "export_dir", None, "If set, export a SavedModel under this folder after training.")
SEED = absl_flags.DEFINE_integer("seed", 0, "Seed for the graph and the input shuffle.")
LOG_STEPS = absl_flags.DEFINE_integer(
    "log_steps", 20, "Log loss and global_step/sec every this many steps.", lower_bound=1)
