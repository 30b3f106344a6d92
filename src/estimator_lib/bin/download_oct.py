"""Downloads the Kaggle retinal OCT dataset (Kermany 2018) into --data_dir.

Fetches paultimothymooney/kermany2018 (~5 GB zip) through the `kaggle`
package and unpacks it safely; an interrupted download or extraction resumes,
and a finished one is not done again (--force redoes it). Needs Kaggle
credentials: KAGGLE_USERNAME and KAGGLE_KEY, or KAGGLE_API_TOKEN, or
~/.kaggle/kaggle.json (kaggle.com > Settings > API). Without them, or without
the network, it prints one line saying what is wrong and exits 1.

    python -m estimator_lib.bin.download_oct --data_dir=/data/oct
    python -m estimator_lib.bin.train --dataset=oct --data_dir=/data/oct --model=vgg16

--synthetic_sample downloads nothing: it writes 40 synthetic OCT-sized JPEGs laid out
CLASS/*.jpeg (10 per class; textured noise, not scans) into --data_dir, offline, so
that the binaries can be tried without Kaggle:

    python -m estimator_lib.bin.download_oct --synthetic_sample --data_dir=/tmp/oct-sample
    python -m estimator_lib.bin.train --dataset=oct --data_dir=/tmp/oct-sample
"""

import os

from absl import app

from estimator_lib.bin import cli
from estimator_lib.flags import definitions as defs

# Loaded in main, after the flags are parsed (cli.lazy_module).
oct_folder = cli.lazy_module("estimator_lib.datasets.oct_folder")
progress = cli.lazy_module("estimator_lib.bin.jobs.progress")
synthetic = cli.lazy_module("estimator_lib.datasets.synthetic")

PROGRAM = "estimator_lib.bin.download_oct"
KEY_FLAGS = (defs.DATA_DIR, defs.FORCE, defs.KEEP_ARCHIVE, defs.SYNTHETIC_SAMPLE)
SAMPLE_IMAGES = 40
SAMPLE_CLASSES = ("CNV", "DME", "DRUSEN", "NORMAL")  # oct_folder.CLASS_NAMES


def download_oct(data_dir: str, **kwargs) -> str:
    """Calls `datasets.download_oct`, loaded when first called (after the flags are parsed)."""
    return oct_folder.download_oct(data_dir, **kwargs)


def count_images(root: str) -> dict:
    """Images per split folder under the OCT root."""
    counts = {}
    for split in oct_folder.SPLITS:
        try:
            folder = oct_folder.split_dir(root, split, log=lambda message: None)
        except Exception:  # pylint: disable=broad-except  (a missing split counts 0)
            continue
        counts[split] = sum(1 for _, _, files in os.walk(folder)
                            for name in files if name.lower().endswith((".jpeg", ".jpg")))
    return counts


def check() -> None:
    """Finds the flag mistakes that need no TensorFlow (cli.run calls it before it loads)."""
    if defs.SYNTHETIC_SAMPLE.value:
        data_dir = cli.require_dir(defs.DATA_DIR, "the folder to write the sample into, "
                                                  "e.g. --data_dir=/tmp/oct-sample")
        if (os.path.isdir(data_dir) and os.listdir(data_dir)
                and not set(os.listdir(data_dir)) <= set(SAMPLE_CLASSES)):
            raise app.UsageError(
                f"--data_dir={data_dir} already holds other files; --synthetic_sample "
                "writes only into an empty or new folder (or one it wrote).")
        return
    cli.require_dir(defs.DATA_DIR, "the folder to download the OCT data into (~5 GB zip, "
                                   "~6 GB unpacked), e.g. --data_dir=/data/oct")


def write_sample(data_dir: str) -> None:
    """Writes the synthetic sample (SAMPLE_IMAGES JPEGs) and says what it wrote."""
    paths = synthetic.write_textured_jpegs(data_dir, count=SAMPLE_IMAGES,
                                           class_names=SAMPLE_CLASSES)
    megabytes = sum(os.path.getsize(path) for path in paths) / 2**20
    print(f"Wrote a synthetic sample to {data_dir}: {len(paths)} OCT-sized grayscale JPEGs "
          f"({len(paths) // len(SAMPLE_CLASSES)} in each class folder, "
          f"{', '.join(SAMPLE_CLASSES)}; textured noise, not scans), {megabytes:.1f} MiB. Train on it with: python -m "
          f"estimator_lib.bin.train --dataset=oct --data_dir={data_dir}", flush=True)


def main(argv):
    """Downloads and unpacks the OCT data into --data_dir, or writes the synthetic sample.

    Prints where the data is, the images of each split, and the command that
    trains on it.

    Args:
        argv: The command line absl left after reading the flags; only the program
            name may remain (every option is a flag).

    Raises:
        app.UsageError: On a positional argument or a flag mistake (`check`).
    """
    cli.refuse_arguments(argv)
    check()
    if defs.SYNTHETIC_SAMPLE.value:
        write_sample(defs.DATA_DIR.value)
        return
    display = progress.ProgressDisplay("Extracting", unit="files")
    try:
        root = download_oct(defs.DATA_DIR.value, force=defs.FORCE.value,
                            keep_archive=defs.KEEP_ARCHIVE.value, progress=display)
    finally:
        display.close()
    counts = count_images(root)
    listed = ", ".join(f"{split} {count:,}" for split, count in counts.items())
    print(f"OCT data ready in {root} ({listed} images). Train on it with: python -m "
          f"estimator_lib.bin.train --dataset=oct --data_dir={defs.DATA_DIR.value}", flush=True)


if __name__ == "__main__":
    cli.run(main, program=PROGRAM, key_flags=KEY_FLAGS, check=check)
