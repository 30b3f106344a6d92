"""Input pipeline throughput against a tight in-graph decode+resize loop.

A benchmark, not a test. On synthetic OCT-sized JPEGs (512x496 grayscale,
written once under --data_dir) it measures images/s of:

  raw_gray       the limit: the least per-image work (read, decode one
                 channel, resize, scale; what the pipeline maps per image) in
                 a tf.while_loop per core (a Python thread each). No tf.data,
                 no batch, no 3-channel output.
  raw_gray3      the same loop making the pipeline's output per image: one
                 channel decoded and resized, then copied to 3 channels with
                 the scale (`images.gray_to_channels`): a [224, 224, 3] float
                 image each, the least work that yields what a model gets.
  raw_rgb        the same loop doing the seed's per-image work (read, decode
                 to RGB, convert, resize): a [224, 224, 3] image each.
  pipeline       datasets.oct_folder.make_input_fn (TRAIN, 1 epoch per pass,
                 3-channel [32, 224, 224, 3] batches, one-hot labels)
  pipeline_estimator  the same pipeline as an Estimator runs an input_fn's
                 Dataset: tf.data autotuning off (docs/estimator.md, deliberate
                 difference 21)
  pipeline_rgb   the same with grayscale=False (each image decoded by its
                 own colour model, a gray one copied to 3 channels)
  seed           the seed program's input_fn, ported verbatim to TF2 names
                 (shuffle_and_repeat, map_and_batch with os.cpu_count() calls,
                 decode to RGB, convert, resize; prefetch(4))
  naive          the seed's map function as `.map(fn).batch(b)`, without
                 num_parallel_calls
  tfrecord_jpeg  the TFRecord reader over the same JPEG bytes
  tfrecord_raw   the TFRecord reader over pre-resized uint8 pixels
  floor          the input_fn's per-image work as plain tf.data and nothing
                 else: file names -> map(read, decode one channel, resize,
                 3 channels scaled; AUTOTUNE) -> batch -> prefetch(AUTOTUNE).
                 No shuffle, no labels, no options (issue 36 part 4)
  floor_tfrecord_jpeg, floor_tfrecord_raw  the same over the TFRecord shards:
                 TFRecordDataset -> map(parse, decode, resize / batch then
                 parse_example, decode_raw) with AUTOTUNE -> batch -> prefetch

Variants run interleaved, --repeats rounds, after one warm-up pass each; the
median is reported with its ratio to `raw`. Every pipeline is consumed by an
in-graph `Dataset.reduce`, so Python never sits between batches.

    .venv/bin/python bench/input_benchmark.py --data_dir=/tmp/oct_bench \\
        --num_images=1000 --batch_size=32 --repeats=5
"""

import argparse
import os
import statistics
import sys
import threading
import time

import provenance  # this folder

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from estimator_lib.tf_internals import patches as tf_patches  # noqa: E402
from estimator_lib.datasets import images, oct_folder, pipeline, synthetic, tfrecord_reader, tfrecord_writer  # noqa: E402

CLASSES = oct_folder.CLASS_NAMES
GOAL = 0.95  # Issue 36: each input_fn within 5% of its floor.


def _make_data(data_dir: str, num_images: int) -> str:
    split = os.path.join(data_dir, "OCT2017", "train")
    have = sum(len(files) for _, _, files in os.walk(split))
    if have != num_images:
        print(f"Writing {num_images} synthetic 512x496 JPEGs to {split} ...",
              flush=True)
        for name in CLASSES:
            folder = os.path.join(split, name)
            if os.path.isdir(folder):
                for f in os.listdir(folder):
                    os.remove(os.path.join(folder, f))
        synthetic.write_textured_jpegs(split, count=num_images)
    return split


def _convert(split: str, data_dir: str, image_format: str, size) -> str:
    output = os.path.join(data_dir, f"records_{image_format}")
    try:
        metadata = tfrecord_reader.tfrecords.read_metadata(output, "train")
        if metadata["source"] == split and (
                image_format == "jpeg" or metadata["image_size"] == list(size)):
            return output
    except ValueError:
        pass
    start = time.time()
    metadata = tfrecord_writer.convert_folder_to_tfrecords(
        split, output, image_format=image_format, image_size=size,
        channels=1, progress=lambda done, total: None)
    print(f"Converted to {image_format} TFRecords in "
          f"{time.time() - start:.1f} s: {len(metadata['shards'])} shards, "
          f"{sum(s['bytes'] for s in metadata['shards']) / 2**20:.0f} MB",
          flush=True)
    return output


def _counter(data: tf.data.Dataset):
    """Counts the images of one full pass, consumed inside the graph."""
    @tf.function
    def count():
        return data.reduce(tf.constant(0, tf.int64),
                           lambda n, batch: n + tf.cast(
                               tf.shape(batch[0])[0], tf.int64))
    return count


def _raw_loop(paths, size, threads, output):
    """Per thread: a tf.while_loop over its files, decode+resize each.

    `output`: 'gray' (one channel), 'gray3' (one channel copied to three) or
    'rgb' (the seed's decode to RGB).
    """
    parts = [tf.constant(paths[i::threads]) for i in range(threads)]

    def decode(path):
        if output == "rgb":
            return _seed_image(path, size)
        if output == "gray3":
            return images.gray_to_channels(images.decode_and_resize_pixels(
                tf.io.read_file(path), image_size=size, channels=1), 3,
                scale=1 / 255.0)
        return images.decode_and_resize(tf.io.read_file(path),
                                        image_size=size, channels=1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def loop(files):
        def body(i, total):
            image = decode(files[i])
            return i + 1, total + tf.reduce_mean(image)
        _, total = tf.while_loop(
            lambda i, _: i < tf.shape(files)[0], body,
            (tf.constant(0), tf.constant(0.0)), parallel_iterations=1)
        return total

    def run():
        workers = [threading.Thread(target=loop, args=(p,)) for p in parts]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return len(paths)
    return run


def _seed_map_func(labels, image_size):
    """The seed's map function: label from the path, decode RGB, resize."""
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(
            tf.constant(labels), tf.range(len(labels), dtype=tf.int64)), -1)

    def map_func(filename):
        label = tf.strings.split([filename], sep=os.sep).values[-2]
        image = _seed_image(filename, image_size)
        return image, tf.one_hot(table.lookup(label), len(labels))
    return map_func


def _seed_image(filename, image_size):
    image = tf.io.decode_jpeg(tf.io.read_file(filename), channels=3)
    image = tf.image.convert_image_dtype(image, dtype=tf.float32)
    return tf.image.resize(image, size=image_size)


def _seed_input_fn(pattern, labels, image_size, batch_size):
    """The seed's OCT input_fn with tf.contrib names swapped for tf.data's."""
    map_func = _seed_map_func(labels, image_size)
    dataset = tf.data.Dataset.list_files(pattern, shuffle=True)
    dataset = dataset.apply(tf.data.experimental.shuffle_and_repeat(2048, 1))
    dataset = dataset.apply(tf.data.experimental.map_and_batch(
        map_func=map_func, batch_size=batch_size,
        num_parallel_calls=os.cpu_count()))
    return dataset.prefetch(buffer_size=4)


def _floor_image(contents, size):
    image = tf.image.resize(tf.io.decode_jpeg(contents, channels=1), size)
    return images.gray_to_channels(image, 3, scale=1 / 255.0)


def _floor(paths, size, batch_size):
    """Plain tf.data: decode -> resize -> batch with AUTOTUNE, nothing else."""
    return (tf.data.Dataset.from_tensor_slices(paths)
            .map(lambda path: (_floor_image(tf.io.read_file(path), size),),
                 num_parallel_calls=tf.data.AUTOTUNE)
            .batch(batch_size).prefetch(tf.data.AUTOTUNE))


def _floor_tfrecord(records, image_format, size, batch_size):
    """The same over TFRecord shards: parse and decode, batch, AUTOTUNE."""
    metadata = tfrecord_reader.tfrecords.read_metadata(records, "train")
    files = [os.path.join(records, shard["file"]) for shard in metadata["shards"]]
    key = tfrecord_reader.tfrecords.ENCODED
    features = {key: tfrecord_reader.tfrecords.FEATURES[key]}
    data = tf.data.TFRecordDataset(files, num_parallel_reads=tf.data.AUTOTUNE)
    if image_format == "jpeg":
        return (data.map(lambda r: (_floor_image(
                    tf.io.parse_single_example(r, features)[key], size),),
                         num_parallel_calls=tf.data.AUTOTUNE)
                .batch(batch_size).prefetch(tf.data.AUTOTUNE))

    def parse(batch):
        pixels = tf.io.decode_raw(tf.io.parse_example(batch, features)[key], tf.uint8)
        pixels = tf.cast(tf.reshape(pixels, [-1, *size, 1]), tf.float32)
        return (images.gray_to_channels(pixels, 3, scale=1 / 255.0),)
    return (data.batch(batch_size).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE))


def _naive(pattern, size, batch_size):
    files = tf.data.Dataset.list_files(pattern, shuffle=True)
    return files.map(_seed_map_func(list(CLASSES), size)).batch(batch_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data_dir", default="/tmp/oct_bench")
    parser.add_argument("--num_images", type=int, default=1000)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--image_size", type=int, default=224)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--variants", default="raw,pipeline,pipeline_estimator,pipeline_rgb,"
                        "seed,naive,tfrecord_jpeg,tfrecord_raw,floor,floor_tfrecord_jpeg,"
                        "floor_tfrecord_raw")
    args = parser.parse_args()
    tf.get_logger().setLevel("ERROR")
    size = (args.image_size, args.image_size)
    split = _make_data(args.data_dir, args.num_images)
    paths = sorted(tf.io.gfile.glob(os.path.join(split, "*", "*.jpeg")))
    pattern = os.path.join(split, "*", "*.jpeg")
    batch = args.batch_size
    cores = os.cpu_count()
    runners = {}
    names = args.variants.split(",")
    if "raw" in names:
        for output in ("gray", "gray3", "rgb"):
            runners[f"raw_{output}"] = _raw_loop(paths, size, cores, output)
    if "pipeline" in names:
        runners["pipeline"] = _counter(oct_folder.make_input_fn(
            args.data_dir, batch_size=batch, image_size=size,
            mode=pipeline.TRAIN, epochs=1)())
    if "pipeline_estimator" in names:
        runners["pipeline_estimator"] = _counter(tf_patches.autotune_thread_off(
            oct_folder.make_input_fn(args.data_dir, batch_size=batch, image_size=size,
                                     mode=pipeline.TRAIN, epochs=1)()))
    if "pipeline_rgb" in names:
        runners["pipeline_rgb"] = _counter(oct_folder.make_input_fn(
            args.data_dir, batch_size=batch, image_size=size,
            grayscale=False, mode=pipeline.TRAIN, epochs=1)())
    if "seed" in names:
        runners["seed"] = _counter(_seed_input_fn(
            pattern, list(CLASSES), size, batch))
    if "naive" in names:
        runners["naive"] = _counter(_naive(pattern, size, batch))
    if "floor" in names:
        runners["floor"] = _counter(_floor(paths, size, batch))
    for image_format in ("jpeg", "raw"):
        name = f"tfrecord_{image_format}"
        if name in names:
            records = _convert(split, args.data_dir, image_format, size)
            runners[name] = _counter(tfrecord_reader.make_input_fn(
                records, batch_size=batch, grayscale=True,
                mode=pipeline.TRAIN, epochs=1)())
        if f"floor_{name}" in names:
            runners[f"floor_{name}"] = _counter(_floor_tfrecord(
                _convert(split, args.data_dir, image_format, size), image_format, size,
                batch))
    started = provenance.start()
    rates = {name: [] for name in runners}
    cpu = {name: [] for name in runners}
    for name, run in runners.items():
        run()  # Warm-up: tracing, autotuning, the page cache.
    for _ in range(args.repeats):
        for name, run in runners.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            count = int(run())
            rates[name].append(count / (time.perf_counter() - start))
            cpu[name].append((time.process_time() - start_cpu) / count)
            if count != len(paths):
                raise RuntimeError(f"{name} read {count} of {len(paths)}.")
    limit = statistics.median(rates["raw_gray"]) if "raw_gray" in rates \
        else None
    gray3_limit = statistics.median(rates["raw_gray3"]) \
        if "raw_gray3" in rates else None
    rgb_limit = statistics.median(rates["raw_rgb"]) if "raw_rgb" in rates \
        else None
    print(f"\n{provenance.line(started)}, TF {tf.__version__}; {len(paths)} JPEGs "
          f"512x496 -> {size[0]}x{size[1]}, batch {batch}, median (min-max) of {args.repeats} "
          "interleaved passes\n")
    print("| variant | images/s, median (min-max) | x raw_gray "
          "| x raw_gray3 | x raw_rgb | CPU ms/image (min) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, values in rates.items():
        median, slowest, best = statistics.median(values), min(values), max(values)
        ratio = f"{median / limit:.2f}" if limit else "-"
        gray3_ratio = f"{median / gray3_limit:.2f}" if gray3_limit else "-"
        rgb_ratio = f"{median / rgb_limit:.2f}" if rgb_limit else "-"
        print(f"| {name} | {median:,.0f} ({slowest:,.0f}-{best:,.0f}) | {ratio} | "
              f"{gray3_ratio} | {rgb_ratio} | {min(cpu[name]) * 1000:.2f} |")
    for name, floor in (("pipeline", "floor"), ("tfrecord_jpeg", "floor_tfrecord_jpeg"),
                        ("tfrecord_raw", "floor_tfrecord_raw")):
        if name in rates and floor in rates:  # Within each pass, then the median.
            ratios = [r / f for r, f in zip(rates[name], rates[floor])]
            print(f"\n{name} x {floor} (1.0: as fast; below: slower): "
                  f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) "
                  f"by images/s, {min(cpu[floor]) / min(cpu[name]):.3f} by CPU time per image; "
                  f"goal >= {GOAL:.2f} by images/s: "
                  f"{'met' if statistics.median(ratios) >= GOAL else 'MISSED'}")
    if "pipeline" in rates and "tfrecord_raw" in rates:
        speedup = (statistics.median(rates["tfrecord_raw"])
                   / statistics.median(rates["pipeline"]))
        print(f"\ntfrecord_raw / pipeline: {speedup:.1f}x")


if __name__ == "__main__":
    main()
