"""Every absl flag of the `python -m estimator_lib.bin.*` binaries, defined once.

Imported only by estimator_lib/bin/. Each holder is named like the keyword it
feeds; validators sit beside the flags they check and name the flag, what
arrived and what works. Checks that need the machine (how many GPUs exist) or
a binary's own context run in that binary's main instead.

Every binary accepts `--flagfile=FILE` (one `--flag=value` a line) and
`--helpfull`; `--help` lists the flags that binary reads.
"""

import os

from absl import flags as absl_flags

DATASETS = ("synthetic", "fashion_mnist", "oct", "tfrecords")
MODELS = ("cnn", "vgg16")
BATCH_SIZE_SCOPES = ("per_replica", "global")
DISTRIBUTION_STRATEGIES = ("auto", "mirrored", "one_device", "none")
CROSS_DEVICE_OPS = ("auto", "nccl", "reduction_to_one", "hierarchical_copy")
DTYPES = ("float32", "mixed_float16", "mixed_bfloat16")
SCALINGS = ("weak", "strong")
IMAGE_FORMATS = ("jpeg", "raw")
# "raise" is the datasets/ argument value, kept as an alias of "fail".
ON_BAD_FILE = ("fail", "skip", "raise")
OCT_SPLITS = ("train", "test", "val")
# Named --weights values; anything else must be a file.
WEIGHTS_NAMES = ("imagenet", "none")
# Datasets whose images are RGB and large enough for VGG16 (at least 32x32).
IMAGE_DATASETS = ("oct", "tfrecords")

# ------------------------------------------------------------- data and model

MODEL_DIR = absl_flags.DEFINE_string(
    "model_dir", None,
    "Where checkpoints, summaries, throughput.jsonl and train_summary.json go "
    "(default: a temporary folder, removed at exit). An existing model_dir resumes "
    "training.")
DATASET = absl_flags.DEFINE_enum(
    "dataset", "synthetic", DATASETS,
    "Input data. 'synthetic': embedded Fashion-MNIST-shaped data with a learnable "
    "signal, offline. 'fashion_mnist': the four IDX files in --data_dir (else the Keras "
    "cache, else downloaded). 'oct': the Kaggle retinal OCT folders in --data_dir "
    "(OCT2017/{train,test}/CLASS/*.jpeg; see download_oct). 'tfrecords': a make_tfrecords "
    "conversion in --data_dir (train, and test or val).")
DATA_DIR = absl_flags.DEFINE_string(
    "data_dir", None,
    "Folder holding the data: Fashion-MNIST IDX files, the OCT download folder, or a "
    "TFRecord conversion. Required by --dataset=oct|tfrecords, download_oct and "
    "make_tfrecords; optional for input_benchmark (default: generated JPEGs).")
MODEL = absl_flags.DEFINE_enum(
    "model", "cnn", MODELS,
    "Model. 'cnn': the seed program's CNN (Conv2D 32/64/64, Dense 64, softmax). "
    "'vgg16': the seed's OCT transfer model, a VGG16 base with only its last 4 layers "
    "(block5) trainable, then Flatten and a softmax layer; needs --dataset=oct or "
    "tfrecords.")
WEIGHTS = absl_flags.DEFINE_string(
    "weights", None,
    "Initial weights: 'imagenet' (vgg16 only; Keras downloads them once into "
    "~/.keras/models, so it needs the network the first time), 'none' (random), or the "
    "path of a local weights file (vgg16: the VGG16 base's, e.g. "
    "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5; cnn: the whole model's). "
    "Default: imagenet for vgg16, none for cnn.")
IMAGE_SIZE = absl_flags.DEFINE_integer(
    "image_size", None,
    "Images are resized to image_size x image_size (oct, tfrecords, input_benchmark, "
    "make_tfrecords). Default 224 (train with --dataset=oct and no GPU: 64); a raw "
    "TFRecord conversion defaults to its stored size.",
    lower_bound=32)
LEARNING_RATE = absl_flags.DEFINE_float(
    "learning_rate", 0.001, "Adam learning rate (the seed's 0.001).", lower_bound=0.0)

# ------------------------------------------------------------ batch and steps

BATCH_SIZE = absl_flags.DEFINE_integer(
    "batch_size", 64,
    "Batch size; what it counts is set by --batch_size_scope, never guessed.",
    lower_bound=1)
BATCH_SIZE_SCOPE = absl_flags.DEFINE_enum(
    "batch_size_scope", "per_replica", BATCH_SIZE_SCOPES,
    "What --batch_size counts. 'per_replica': each replica's batch (the Estimator "
    "input_fn contract); the global batch is batch_size x replicas. 'global': the "
    "examples of one step over all replicas; it must divide evenly by the replicas.")
TRAIN_STEPS = absl_flags.DEFINE_integer(
    "train_steps", None,
    "Train up to this global step (max_steps). Default 100 unless --epochs is given.",
    lower_bound=1)
EPOCHS = absl_flags.DEFINE_integer(
    "epochs", None,
    "Or train this many passes over the training split: train_steps = "
    "ceil(epochs x examples / global batch). Not with --train_steps.", lower_bound=1)

# ---------------------------------------------------------------- devices

NUM_DEVICES = absl_flags.DEFINE_integer(
    "num_devices", 1,
    "Replicas: the first num_devices GPUs when there are GPUs, else logical CPU devices "
    "(which share the same cores, so they show correctness, not speed-up).",
    lower_bound=1)
absl_flags.DEFINE_alias("num_gpus", "num_devices")
DEVICES = absl_flags.DEFINE_list(
    "devices", ["1", "2"],
    "scaling_benchmark: the device counts to run, comma-separated, e.g. 1,2,4,8.")
WORKERS = absl_flags.DEFINE_list(
    "workers", ["1"],
    "scaling_benchmark: worker-process counts, comma-separated, e.g. 1,2,4: each count "
    "above 1 runs the job as that many local processes on 127.0.0.1 with TF_CONFIG "
    "(MultiWorkerMirroredStrategy, one device each), next to the --devices runs.")
DISTRIBUTION_STRATEGY = absl_flags.DEFINE_enum(
    "distribution_strategy", "auto", DISTRIBUTION_STRATEGIES,
    "'mirrored': MirroredStrategy over the devices (in-sync replicas). 'one_device': "
    "OneDeviceStrategy (1 device). 'none': no strategy (1 device). 'auto': mirrored with "
    "more than one device, else none.")
CROSS_DEVICE_OPS = absl_flags.DEFINE_enum(
    "cross_device_ops", "auto", CROSS_DEVICE_OPS,
    "All-reduce of MirroredStrategy. 'auto': TensorFlow's choice; 'nccl': NcclAllReduce "
    "(GPUs only); 'reduction_to_one': ReductionToOneDevice; 'hierarchical_copy': "
    "HierarchicalCopyAllReduce.")

# --------------------------------------------------------- numerics and XLA

DTYPE = absl_flags.DEFINE_enum(
    "dtype", "float32", DTYPES,
    "Keras mixed-precision policy. 'mixed_float16' (loss scaling, a tf_keras Adam "
    "instead of the TF1 one) and 'mixed_bfloat16' compute in 16 bits and keep float32 "
    "variables, on any number of replicas.")
XLA = absl_flags.DEFINE_boolean(
    "xla", False,
    "Compile the training graph with XLA auto-clustering (the session's global_jit_level "
    "ON_1; on CPU, CPU clustering is switched on too).")

# ------------------------------------------------------ evaluation and export

EVAL = absl_flags.DEFINE_boolean(
    "eval", True, "Evaluate after training (on the test split, else val).")
EVAL_STEPS = absl_flags.DEFINE_integer(
    "eval_steps", None, "Batches to evaluate (default: the whole split).", lower_bound=1)
EXPORT_DIR = absl_flags.DEFINE_string(
    "export_dir", None, "If set, export a SavedModel under this folder after training.")

# ------------------------------------------------------------- cadence

SEED = absl_flags.DEFINE_integer(
    "seed", 0,
    "Seed for the graph, the input shuffles and the Keras initial weights: the same flags "
    "repeat a run's losses on CPU (see --deterministic for op determinism).")
DETERMINISTIC = absl_flags.DEFINE_boolean(
    "deterministic", False,
    "Also switch on tf.config.experimental.enable_op_determinism() for the whole process "
    "(the binary owns its process): every kernel repeats its result (GPU ones included; an "
    "op with no deterministic kernel fails instead of varying) and tf.data keeps its order. "
    "Needs --seed. Its cost in speed: docs/binaries.md.")
LOG_STEPS = absl_flags.DEFINE_integer(
    "log_steps", 20,
    "Log loss, global_step/sec and examples/sec (all replicas) every this many steps.",
    lower_bound=1)
SAVE_SUMMARY_STEPS = absl_flags.DEFINE_integer(
    "save_summary_steps", 10,
    "Write TensorBoard summaries every this many steps (the binaries' default draws a "
    "curve for a 100-step run; RunConfig's own default is 100).",
    lower_bound=1)
WARM_STEPS = absl_flags.DEFINE_integer(
    "warm_steps", 5,
    "Leading steps left out of examples/sec (graph optimisation, first input); at most "
    "train_steps - 1 are left out.", lower_bound=0)
STEPS_PER_RUN = absl_flags.DEFINE_integer(
    "steps_per_run", 1,
    "Training steps per session run, in a bounded in-graph loop (RunConfig.steps_per_run): "
    "for small steps, where each run's fixed cost dominates. With more than 1, warm-up "
    "leaves out whole runs and the model's own summaries are not written.", lower_bound=1)

# ------------------------------------------------------- scaling benchmark

OUTPUT_DIR = absl_flags.DEFINE_string(
    "output_dir", None,
    "scaling_benchmark: where the table, JSON, charts and runs go (default: a new "
    "temporary folder). make_tfrecords: where the TFRecord shards go (required). "
    "input_benchmark: if set, where input_benchmark.json goes.")
SCALING = absl_flags.DEFINE_enum(
    "scaling", "weak", SCALINGS,
    "scaling_benchmark: 'weak' keeps --batch_size per replica (the global batch grows "
    "with the devices); 'strong' keeps --batch_size as the global batch (each replica's "
    "share shrinks).")
REPEATS = absl_flags.DEFINE_integer(
    "repeats", None,
    "scaling_benchmark: runs per device count, interleaved, the median reported (default "
    "1). input_benchmark: timed passes per variant, the median reported (default 3).",
    lower_bound=1)

# ---------------------------------------------------------- input benchmark

NUM_IMAGES = absl_flags.DEFINE_integer(
    "num_images", 256,
    "input_benchmark: images per pass (generated 512x496 grayscale JPEGs when "
    "--data_dir is not given).", lower_bound=1)

# ----------------------------------------------------- download and TFRecords

FORCE = absl_flags.DEFINE_boolean(
    "force", False, "download_oct: download and extract again even if complete.")
KEEP_ARCHIVE = absl_flags.DEFINE_boolean(
    "keep_archive", False, "download_oct: keep the zip after extracting it.")
SYNTHETIC_SAMPLE = absl_flags.DEFINE_boolean(
    "synthetic_sample", False,
    "download_oct: download nothing; write a small synthetic sample into --data_dir "
    "instead (40 OCT-sized grayscale JPEGs, CLASS/*.jpeg for the four OCT classes; not "
    "real scans), offline, to try the binaries on.")
IMAGE_FORMAT = absl_flags.DEFINE_enum(
    "image_format", "raw", IMAGE_FORMATS,
    "make_tfrecords: 'raw' stores pixels already resized to --image_size as uint8 (far "
    "cheaper to read); 'jpeg' stores each file's bytes unchanged.")
NUM_SHARDS = absl_flags.DEFINE_integer(
    "num_shards", None,
    "make_tfrecords: shards per split (default: ~--target_shard_mb each).", lower_bound=1)
TARGET_SHARD_MB = absl_flags.DEFINE_integer(
    "target_shard_mb", 100, "make_tfrecords: aimed shard size in MiB.", lower_bound=1)
SPLITS = absl_flags.DEFINE_list(
    "splits", list(OCT_SPLITS),
    "make_tfrecords: the OCT splits to convert (those present are converted).")
ON_BAD_FILE = absl_flags.DEFINE_enum(
    "on_bad_file", "fail", ON_BAD_FILE,
    "make_tfrecords, and train with --dataset=oct: a corrupt or non-image file stops the "
    "run with one line naming it ('fail'; 'raise' is the same) or is left out and counted "
    "('skip'; training also drops a file that fails to decode mid-run).")


def on_bad_file_value(flag_value: str) -> str:
    """Returns the datasets/ `on_bad_file` argument for a --on_bad_file value.

    Args:
        flag_value: The flag's value: 'fail', 'skip', or 'raise' (the same as 'fail').

    Returns:
        The value the datasets/ builders take: 'raise' for 'fail', else the value.

    Examples:
        >>> on_bad_file_value("fail"), on_bad_file_value("skip")
        ('raise', 'skip')
    """
    return "raise" if flag_value == "fail" else flag_value


# ------------------------------------------------------------- validators

def _counts_validator(name, what, example):
    def check(values):
        counts = []
        for value in values:
            if not value.strip().isdigit() or int(value) < 1:
                raise absl_flags.ValidationError(
                    f"--{name} takes positive {what} counts, e.g. --{name}={example}. "
                    f"Received: --{name}={','.join(values)}.")
            counts.append(int(value))
        if not counts:
            raise absl_flags.ValidationError(
                f"--{name} needs at least one count, e.g. --{name}={example}.")
        if len(set(counts)) != len(counts):
            raise absl_flags.ValidationError(
                f"--{name} lists a count twice. Received: --{name}={','.join(values)}.")
        return True

    return check


_check_devices = _counts_validator("devices", "device", "1,2,4,8")
_check_workers = _counts_validator("workers", "worker-process", "1,2")
absl_flags.register_validator(DEVICES, _check_devices)
absl_flags.register_validator(WORKERS, _check_workers)


def _check_splits(values):
    unknown = [v for v in values if v not in OCT_SPLITS]
    if unknown or not values:
        raise absl_flags.ValidationError(
            f"--splits takes some of {','.join(OCT_SPLITS)}. "
            f"Received: --splits={','.join(values)}.")
    return True


absl_flags.register_validator(SPLITS, _check_splits)


def _check_weights(value):
    if value is None or value in WEIGHTS_NAMES or os.path.isfile(value):
        return True
    raise absl_flags.ValidationError(
        f"--weights must be 'imagenet', 'none' or an existing weights file. Received: "
        f"--weights={value} (no such file).")


absl_flags.register_validator(WEIGHTS, _check_weights)


@absl_flags.multi_flags_validator(
    ["dataset", "data_dir"],
    message="--dataset=oct and --dataset=tfrecords need --data_dir (the OCT download "
            "folder, or a make_tfrecords output folder).")
def _check_data_dir(values):
    return values["dataset"] not in IMAGE_DATASETS or bool(values["data_dir"])


@absl_flags.multi_flags_validator(["model", "dataset"])
def _check_model_fits_dataset(values):
    if values["model"] == "vgg16" and values["dataset"] not in IMAGE_DATASETS:
        raise absl_flags.ValidationError(
            f"--model=vgg16 needs RGB images of at least 32x32: use --dataset=oct or "
            f"--dataset=tfrecords. Received: --dataset={values['dataset']} (28x28 "
            f"grayscale; use --model=cnn).")
    return True


@absl_flags.multi_flags_validator(["model", "weights"])
def _check_weights_fit_model(values):
    if values["weights"] == "imagenet" and values["model"] != "vgg16":
        raise absl_flags.ValidationError(
            f"--weights=imagenet is for --model=vgg16. Received: --model={values['model']}; "
            f"use --weights=none or a weights file.")
    return True


@absl_flags.multi_flags_validator(["train_steps", "epochs"])
def _check_steps_or_epochs(values):
    if values["train_steps"] is not None and values["epochs"] is not None:
        raise absl_flags.ValidationError(
            f"Give --train_steps or --epochs, not both. Received: "
            f"--train_steps={values['train_steps']}, --epochs={values['epochs']}.")
    return True


@absl_flags.multi_flags_validator(["distribution_strategy", "num_devices"])
def _check_strategy_fits_devices(values):
    strategy, devices = values["distribution_strategy"], values["num_devices"]
    if strategy in ("one_device", "none") and devices != 1:
        raise absl_flags.ValidationError(
            f"--distribution_strategy={strategy} runs on one device. Received: "
            f"--num_devices={devices}; use --distribution_strategy=mirrored (or auto).")
    return True


@absl_flags.multi_flags_validator(["cross_device_ops", "distribution_strategy"])
def _check_cross_device_ops(values):
    ops, strategy = values["cross_device_ops"], values["distribution_strategy"]
    if ops != "auto" and strategy in ("one_device", "none"):
        raise absl_flags.ValidationError(
            f"--cross_device_ops={ops} is MirroredStrategy's all-reduce. Received: "
            f"--distribution_strategy={strategy}; use mirrored, or --cross_device_ops=auto.")
    return True
