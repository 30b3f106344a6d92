"""Converts the OCT image folders to sharded TFRecord files, with a progress display.

--data_dir is the OCT download folder (each of --splits present is converted
and named after it: train-00000-of-000NN.tfrecord, train.metadata.json, ...),
or any folder of CLASS/*.jpeg, split as `--dataset=oct` splits it: the same seeded
20% of each class is held out as 'test', the rest is 'train'. --image_format=raw
stores pixels already resized to --image_size as uint8, far cheaper to read
than JPEGs; 'jpeg' stores the files' bytes unchanged. Every image is decoded
once, so a corrupt file is found here (--on_bad_file=skip leaves it out).

    python -m estimator_lib.bin.make_tfrecords --data_dir=/data/oct --output_dir=/data/oct-tfr
    python -m estimator_lib.bin.train --dataset=tfrecords --data_dir=/data/oct-tfr --model=vgg16
"""

import os

from absl import app

from estimator_lib.bin import cli
from estimator_lib.flags import definitions as defs

# Loaded in main, after the flags are parsed (cli.lazy_module).
tf = cli.lazy_module("tensorflow")
errors = cli.lazy_module("estimator_lib.datasets.errors")
oct_folder = cli.lazy_module("estimator_lib.datasets.oct_folder")
tfrecord_writer = cli.lazy_module("estimator_lib.datasets.tfrecord_writer")
folder_scan = cli.lazy_module("estimator_lib.datasets.folder_scan")
progress = cli.lazy_module("estimator_lib.bin.jobs.progress")

PROGRAM = "estimator_lib.bin.make_tfrecords"
KEY_FLAGS = (defs.DATA_DIR, defs.OUTPUT_DIR, defs.IMAGE_FORMAT, defs.IMAGE_SIZE,
             defs.NUM_SHARDS, defs.TARGET_SHARD_MB, defs.SPLITS, defs.ON_BAD_FILE, defs.SEED)
DEFAULT_IMAGE_SIZE = 224


def _is_oct(data_dir: str) -> bool:
    try:
        oct_folder.find_root(data_dir, log=lambda message: None)
        return True
    except errors.BadDataError:
        return False


def _plain_folder_classes(data_dir: str):
    """OCT's class names when the folder's classes are OCT ones, else its own (sorted)."""
    names = sorted(entry.name for entry in os.scandir(data_dir)
                   if entry.is_dir() and not entry.name.startswith((".", "__MACOSX")))
    if names and set(names) <= set(oct_folder.CLASS_NAMES):
        return oct_folder.CLASS_NAMES, 1  # Gray scans: one stored channel.
    return None, 3


def _report(name: str, metadata: dict, output_dir: str) -> str:
    shards = metadata["shards"]
    megabytes = sum(s["bytes"] for s in shards) / 2**20
    counts = ", ".join(f"{k} {v:,}" for k, v in metadata["counts"].items())
    skipped = f"; skipped {metadata['num_skipped']} bad file(s)" if metadata[
        "num_skipped"] else ""
    return (f"{name}: {metadata['num_examples']:,} examples ({counts}) in {len(shards)} "
            f"shard(s), {megabytes:,.1f} MiB, {metadata['image_format']}{skipped} -> "
            f"{os.path.join(output_dir, name)}-*.tfrecord")


def check() -> None:
    """Finds the flag mistakes that need no TensorFlow (cli.run calls it before it loads)."""
    cli.require_dir(defs.DATA_DIR, "the OCT download folder or a folder of CLASS/*.jpeg "
                                   "images")
    cli.require_dir(defs.OUTPUT_DIR, "where the TFRecord shards go")
    cli.check_dir_exists(defs.DATA_DIR, cli.EXPECT_IMAGES)


def main(argv):
    """Converts --data_dir's images to TFRecord shards in --output_dir; prints a report per split.

    An OCT download converts each of --splits it holds; any other CLASS/*.jpeg
    folder is split into 'train' and 'test' as `--dataset=oct` splits it.

    Args:
        argv: The command line absl left after reading the flags; only the program
            name may remain (every option is a flag).

    Raises:
        app.UsageError: On a positional argument, a flag mistake, or an OCT folder
            holding none of --splits.
        BadDataError: On a bad image file, unless --on_bad_file=skip.
    """
    cli.refuse_arguments(argv)
    check()
    data_dir, output_dir = defs.DATA_DIR.value, defs.OUTPUT_DIR.value
    tf.get_logger().setLevel("WARNING")  # The display shows progress; keep warnings.
    side = defs.IMAGE_SIZE.value or DEFAULT_IMAGE_SIZE
    options = dict(image_format=defs.IMAGE_FORMAT.value, image_size=side,
                   num_shards=defs.NUM_SHARDS.value,
                   target_shard_bytes=defs.TARGET_SHARD_MB.value * 2**20,
                   seed=defs.SEED.value, on_bad_file=defs.on_bad_file_value(defs.ON_BAD_FILE.value))
    reports = []
    if _is_oct(data_dir):
        jobs = []
        for split in defs.SPLITS.value:
            try:
                jobs.append((split, oct_folder.split_dir(data_dir, split,
                                                         log=lambda message: None), None))
            except errors.BadDataError:
                print(f"No {split!r} split under {data_dir}: skipped.", flush=True)
        if not jobs:
            present = ",".join(oct_folder.available_splits(data_dir))
            raise app.UsageError(f"--data_dir={data_dir} holds none of the splits "
                                 f"--splits={','.join(defs.SPLITS.value)}; it holds "
                                 f"--splits={present}.")
        class_names, channels = oct_folder.CLASS_NAMES, 1  # As convert_oct_to_tfrecords.
    else:
        class_names, channels = _plain_folder_classes(data_dir)
        train, test = folder_scan.split_listing(
            folder_scan.scan_folder(data_dir, class_names=class_names,
                                    on_bad_file=options["on_bad_file"]),
            test_fraction=oct_folder.HOLDOUT_FRACTION, seed=0)  # As --dataset=oct draws.
        jobs = [("train", data_dir, train)] + ([("test", data_dir, test)] if test.files else [])
        print(f"{data_dir} is not the OCT layout (OCT2017/train/CLASS/*.jpeg): converting it "
              f"as one CLASS/*.jpeg folder, {oct_folder.HOLDOUT_FRACTION:.0%} of each class "
              f"held out as 'test' (the draw --dataset=oct makes).", flush=True)
    for name, folder, listing in jobs:
        display = progress.ProgressDisplay(f"Converting {name}")
        try:
            metadata = tfrecord_writer.convert_folder_to_tfrecords(
                folder, output_dir, name=name, class_names=class_names, channels=channels,
                progress=display, listing=listing, **options)
        except ValueError as error:
            if isinstance(error, errors.BadDataError):
                raise
            raise app.UsageError(str(error)) from None
        finally:
            display.close()
        reports.append(_report(name, metadata, output_dir))
    print("\n".join(reports), flush=True)
    print(f"Read them with: python -m estimator_lib.bin.train --dataset=tfrecords "
          f"--data_dir={output_dir}", flush=True)


if __name__ == "__main__":
    cli.run(main, program=PROGRAM, key_flags=KEY_FLAGS, check=check)
