"""The original's `gc` module: filters choosing which exported paths to keep or delete.

A `Path(path, export_version)` names one export (a folder or file); a filter takes a
list of Paths and returns the sorted sublist it keeps. Legacy exporters compose
them (`_union`, `_negation`) over `_get_paths(base_dir, parser)` and delete what
the negation returns. The helper names keep the original's leading underscore,
since that is how callers imported them; `compat.install()` puts this module at
`tensorflow_estimator.python.estimator.gc` (and `tensorflow.python.estimator.gc`).
"""

import collections
import heapq
import math
import os
from typing import Callable, List, Optional

import tensorflow as tf
# The listing goes through TensorFlow's gfile.ListDirectory, not tf.io.gfile.listdir,
# because that is what the original called and what its tests (and users') mock.
from tensorflow.python.platform import gfile

Path = collections.namedtuple("Path", "path export_version")

Filter = Callable[[List[Path]], List[Path]]


def _largest_export_versions(n: int) -> Filter:
    """A filter keeping the `n` paths with the largest export versions (None ignored)."""

    def keep(paths):
        heap = []
        for index, path in enumerate(paths):
            if path.export_version is not None:
                heapq.heappush(heap, (path.export_version, index))
        return sorted(paths[i] for _, i in heapq.nlargest(n, heap))

    return keep


def _one_of_every_n_export_versions(n: int) -> Filter:
    """A filter keeping one path per interval [0, n], (n, 2n], ...: the largest in each."""

    def keep(paths):
        keepers = {}  # interval -> the largest path seen in it
        for path in paths:
            if path.export_version is None:
                continue
            # Version 0 falls in the first interval, with 1..n.
            interval = math.floor((path.export_version - 1) / n) if path.export_version else 0
            existing = keepers.get(interval)
            if not existing or existing.export_version < path.export_version:
                keepers[interval] = path
        return sorted(keepers.values())

    return keep


def _mod_export_version(n: int) -> Filter:
    """A filter keeping the paths whose export version is a multiple of `n`."""

    def keep(paths):
        return sorted(path for path in paths if path.export_version % n == 0)

    return keep


def _union(lf: Filter, rf: Filter) -> Filter:
    """A filter keeping what either `lf` or `rf` keeps."""

    def keep(paths):
        return sorted(set(lf(paths)) | set(rf(paths)))

    return keep


def _negation(f: Filter) -> Filter:
    """A filter keeping what `f` does not keep."""

    def keep(paths):
        return sorted(set(paths) - set(f(paths)))

    return keep


def _get_paths(base_dir, parser: Callable[[Path], Optional[Path]]) -> List[Path]:
    """The Paths directly under `base_dir`, as `parser` completes (or drops, with None) them.

    Args:
        base_dir: The folder to list (local or any tf.io.gfile filesystem).
        parser: Called with `Path(<base_dir>/<entry>, None)`; returns the Path with
            its `export_version` set, or None to leave the entry out.

    Returns:
        The sorted Paths the parser returned.
    """
    paths = []
    for raw in gfile.ListDirectory(base_dir):
        # Object stores list sub-folders with a trailing "/".
        name = tf.compat.as_str_any(raw)
        if name.endswith("/"):
            name = name[:-1]
        path = parser(Path(os.path.join(tf.compat.as_str_any(base_dir), name), None))
        if path:
            paths.append(path)
    return sorted(paths)
