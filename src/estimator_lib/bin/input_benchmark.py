"""Measures the OCT input pipeline alone, in images/sec, against a plain decode loop.

Two ways to turn the same JPEG files into images, each consumed inside the
graph so that Python never sits between images:

  loop      the least work that yields each image (read, decode, resize, scale)
            in a tf.while_loop, one loop per core on its own thread: no tf.data,
            no batches, no 3-channel copy.
  loop_3ch  (grayscale data) the same loop making what the input_fn delivers per
            image: one channel decoded and resized, copied to 3 channels with the
            1/255 scale. The pipeline is given against both references.
  pipeline  the training input_fn (datasets.oct_folder / image_folder, TRAIN
            mode): shuffled, decoded and resized in parallel, batched,
            prefetched, labels one-hot.

If a training step consumes images faster than the pipeline delivers them
(e.g. a GPU), it will wait for input. With no --data_dir it writes
--num_images OCT-sized (512x496 grayscale) JPEGs to a temporary folder. A pass
is at least 20 batches (the files are read again when there are fewer), so
that it times the pipeline's flow, not its start-up.

    python -m estimator_lib.bin.input_benchmark
    python -m estimator_lib.bin.input_benchmark --data_dir=/data/oct --num_images=2000 \\
        --batch_size=32 --repeats=5 --output_dir=/tmp/input_bench
"""

import json
import math
import os
import shutil
import statistics
import tempfile
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

from absl import app

from estimator_lib.bin import cli
from estimator_lib.flags import definitions as defs

# Loaded in main, after the flags are parsed (cli.lazy_module).
np = cli.lazy_module("numpy")
tf = cli.lazy_module("tensorflow")
errors = cli.lazy_module("estimator_lib.datasets.errors")
folder_scan = cli.lazy_module("estimator_lib.datasets.folder_scan")
image_folder = cli.lazy_module("estimator_lib.datasets.image_folder")
images = cli.lazy_module("estimator_lib.datasets.images")
oct_folder = cli.lazy_module("estimator_lib.datasets.oct_folder")
provenance = cli.lazy_module("estimator_lib.bin.jobs.provenance")
pipeline = cli.lazy_module("estimator_lib.datasets.pipeline")
synthetic = cli.lazy_module("estimator_lib.datasets.synthetic")

PROGRAM = "estimator_lib.bin.input_benchmark"
KEY_FLAGS = (defs.DATA_DIR, defs.NUM_IMAGES, defs.BATCH_SIZE, defs.IMAGE_SIZE, defs.REPEATS,
             defs.OUTPUT_DIR, defs.SEED)
DEFAULT_REPEATS = 3
DEFAULT_IMAGE_SIZE = 224
MIN_BATCHES_PER_PASS = 20


def _source(data_dir: Optional[str], num_images: int, scratch: str):
    """(folder, class names or None, grayscale, description) of the images to read."""
    if data_dir is None:
        folder = os.path.join(scratch, "train")
        print(f"Writing {num_images} OCT-sized (512x496 grayscale) JPEGs to {folder} ...",
              flush=True)
        synthetic.write_textured_jpegs(folder, count=num_images)
        return folder, oct_folder.CLASS_NAMES, True, "generated 512x496 grayscale JPEGs"
    problem = cli.not_a_folder("data_dir", data_dir, cli.EXPECT_IMAGES)
    if problem:
        raise app.UsageError(problem)
    try:
        folder = oct_folder.split_dir(data_dir, "train", log=lambda message: None)
        return folder, oct_folder.CLASS_NAMES, True, f"OCT train images in {folder}"
    except errors.BadDataError:
        # Not the OCT layout: any folder of CLASS/*.jpeg, decoded by its colour model.
        return data_dir, None, False, f"images in {data_dir}"


def _loop(paths: Sequence[str], size, channels: int, threads: int, *,
          to_three: bool = False) -> Callable[[], int]:
    """Decodes and resizes every path in a tf.while_loop, one loop per thread.

    `to_three`: one channel decoded, then copied to 3 channels with the 1/255 scale,
    as the grayscale input_fn delivers each image.
    """
    parts = [paths[i::threads] for i in range(threads) if paths[i::threads]]

    def decode(path):
        if to_three:
            return images.gray_to_channels(images.decode_and_resize_pixels(
                tf.io.read_file(path), image_size=size, channels=1), 3, scale=1 / 255.0)
        return images.decode_and_resize(tf.io.read_file(path), image_size=size,
                                        channels=channels)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def decode_all(files):
        def body(i, total):
            image = decode(files[i])
            return i + 1, total + tf.reduce_mean(image)
        _, total = tf.while_loop(lambda i, _: i < tf.shape(files)[0], body,
                                 (tf.constant(0), tf.constant(0.0)), parallel_iterations=1)
        return total

    def run() -> int:
        workers = [threading.Thread(target=decode_all, args=(tf.constant(p),)) for p in parts]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return len(paths)
    return run


def _pipeline(folder, class_names, grayscale, size, batch_size, batches, seed):
    input_fn = image_folder.make_input_fn(
        folder, batch_size=batch_size, mode=pipeline.TRAIN, class_names=class_names,
        image_size=size, grayscale=grayscale, seed=seed)
    data = input_fn().take(batches)

    @tf.function
    def count():
        return data.reduce(tf.constant(0, tf.int64),
                           lambda n, batch: n + tf.cast(tf.shape(batch[0])[0], tf.int64))
    return lambda: int(count())


def measure(runners: Dict[str, Callable[[], int]], repeats: int) -> Dict[str, Dict]:
    """Measures images/sec and CPU ms/image of each runner: warm-up, then interleaved passes."""
    for run in runners.values():
        run()  # Tracing, autotuning, the page cache.
    rates: Dict[str, List[float]] = {name: [] for name in runners}
    cpu: Dict[str, List[float]] = {name: [] for name in runners}
    for _ in range(repeats):
        for name, run in runners.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            count = run()
            rates[name].append(count / (time.perf_counter() - start))
            cpu[name].append(1000 * (time.process_time() - start_cpu) / count)
    return {name: {"images_per_sec": statistics.median(rates[name]),
                   "best_images_per_sec": max(rates[name]),
                   "slowest_images_per_sec": min(rates[name]),
                   "cpu_ms_per_image": min(cpu[name]), "passes": rates[name]}
            for name in runners}


def check() -> None:
    """Finds the flag mistakes that need no TensorFlow (cli.run calls it before it loads)."""
    cli.check_dir_exists(defs.DATA_DIR, cli.EXPECT_IMAGES)


def main(argv):
    """Times the input pipeline against the plain decode loops on the same files; prints a table.

    With --output_dir, also writes the figures to `input_benchmark.json` there.

    Args:
        argv: The command line absl left after reading the flags; only the program
            name may remain (every option is a flag).

    Raises:
        app.UsageError: On a positional argument.
    """
    cli.refuse_arguments(argv)
    tf.get_logger().setLevel("ERROR")
    side = defs.IMAGE_SIZE.value or DEFAULT_IMAGE_SIZE
    size = (side, side)
    batch, repeats = defs.BATCH_SIZE.value, defs.REPEATS.value or DEFAULT_REPEATS
    scratch = tempfile.mkdtemp(prefix="input_benchmark_")
    try:
        folder, class_names, grayscale, what = _source(defs.DATA_DIR.value,
                                                       defs.NUM_IMAGES.value, scratch)
        listing = folder_scan.scan_folder(folder, class_names=class_names)
        rng = np.random.RandomState(defs.SEED.value)
        count = min(defs.NUM_IMAGES.value, len(listing.files))
        paths = sorted(rng.choice(listing.files, count, replace=False))
        # A pass of a few batches would time the pipeline's start-up, not its flow:
        # both read the files again (from the page cache) until a pass is long enough.
        per_pass = max(count, MIN_BATCHES_PER_PASS * batch)
        batches = math.ceil(per_pass / batch)
        cycled = [paths[i % count] for i in range(batches * batch)]
        cores = os.cpu_count() or 1
        runners = {"loop": _loop(cycled, size, 1 if grayscale else 3, cores)}
        if grayscale:
            runners["loop_3ch"] = _loop(cycled, size, 1, cores, to_three=True)
        runners["pipeline"] = _pipeline(folder, listing.class_names, grayscale, size, batch,
                                        batches, defs.SEED.value)
        load_before = os.getloadavg()[0]
        results = measure(runners, repeats)
        load_after = os.getloadavg()[0]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    loop, piped = results["loop"], results["pipeline"]
    references = [name for name in ("loop", "loop_3ch") if name in results]
    ratio = piped["images_per_sec"] / loop["images_per_sec"]
    against = ", ".join(f"{piped['images_per_sec'] / results[name]['images_per_sec']:.2f}x "
                        f"{name}" for name in references)
    lines = [
        f"Input pipeline alone: {count} {what} -> {side}x{side}, {len(cycled)} images a "
        f"pass, batch {batch}, {cores} cores, TF {tf.__version__}, median (min-max) of "
        f"{repeats} interleaved passes, load average {load_before:.1f} before, "
        f"{load_after:.1f} after; {provenance.stamp()}",
        "",
        "| variant | images/s, median (min-max) | "
        + " | ".join(f"x {name}" for name in references) + " | CPU ms/image (min) |",
        "| --- | ---: | " + " | ".join("---:" for _ in references) + " | ---: |",
    ]
    for name, result in results.items():
        lines.append(f"| {name} | {result['images_per_sec']:,.0f} "
                     f"({result['slowest_images_per_sec']:,.0f}-"
                     f"{result['best_images_per_sec']:,.0f}) | "
                     + " | ".join(f"{result['images_per_sec'] / results[r]['images_per_sec']:.2f}"
                                  for r in references)
                     + f" | {result['cpu_ms_per_image']:.2f} |")
    lines += [
        "",
        f"The pipeline delivers {piped['images_per_sec']:,.0f} images/s ({against} on the "
        f"same files). A training step that consumes more than "
        f"that (e.g. on a GPU) will wait for input: store pre-resized TFRecords "
        f"(python -m estimator_lib.bin.make_tfrecords --image_format=raw) or add cores."]
    print("\n".join(lines), flush=True)
    if defs.OUTPUT_DIR.value:
        os.makedirs(defs.OUTPUT_DIR.value, exist_ok=True)
        path = os.path.join(defs.OUTPUT_DIR.value, "input_benchmark.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"images": count, "images_per_pass": len(cycled), "source": what, "image_size": side,
                       "batch_size": batch, "cores": cores, "repeats": repeats,
                       "tensorflow": tf.__version__, "pipeline_over_loop": ratio,
                       "results": results}, f, indent=2, sort_keys=True)
        print(f"Wrote {path}", flush=True)


if __name__ == "__main__":
    cli.run(main, program=PROGRAM, key_flags=KEY_FLAGS, check=check)
