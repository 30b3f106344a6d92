"""Listing and checking an image folder laid out CLASS/*.jpeg.

Every problem is found here, before training starts, and either raises a
`BadDataError` naming the file or folder, or (with `on_bad_file='skip'`) is
left out and counted in one log line. No file ever gets a label from a
folder that is not its own.
"""

import collections
import concurrent.futures
import contextlib
import dataclasses
import os
import random
import re
import sys
import tempfile
from typing import Callable, Dict, Optional, Sequence, Tuple

import tensorflow as tf

from estimator_lib.datasets import errors
from estimator_lib.datasets.errors import BadDataError

IMAGE_EXTENSIONS = (".jpeg", ".jpg")
ON_BAD_FILE = ("raise", "skip")
VERIFY = ("none", "header", "decode")
_JPEG_START = b"\xff\xd8\xff"
_JPEG_END = b"\xff\xd9"
# libjpeg's warnings (jerror.h), which it writes to stderr itself.
LIBJPEG_WARNING = re.compile(
    r"^(Corrupt JPEG data|Premature end of JPEG file|Unsupported marker type|"
    r"Invalid SOS parameters|Inconsistent progression sequence|Application transferred "
    r"too (few|many) scanlines|Warning: (unknown JFIF revision|thumbnail image size))")


@dataclasses.dataclass(frozen=True)
class FolderListing:
    """The usable files of a folder and what was left out.

    Attributes:
        folder: The folder, as an absolute path.
        class_names: Sorted class names; label i is class_names[i].
        files: Usable image paths, sorted by class then name.
        labels: The label of each file.
        skipped: (path, reason) for each file or folder left out.
        empty_classes: Class names whose folder has no usable image.
        subset: A split of the folder's files (`split_listing`): readers take
            `files` as listed rather than every file of each class folder.
    """

    folder: str
    class_names: Tuple[str, ...]
    files: Tuple[str, ...]
    labels: Tuple[int, ...]
    skipped: Tuple[Tuple[str, str], ...] = ()
    empty_classes: Tuple[str, ...] = ()
    subset: bool = False

    @property
    def counts(self) -> Dict[str, int]:
        """Usable images per class name."""
        counter = collections.Counter(self.labels)
        return {name: counter[i] for i, name in enumerate(self.class_names)}

    def summary(self) -> str:
        """Says in one line what was read and what was skipped."""
        line = f"{len(self.files)} images in {len(self.class_names)} classes " \
               f"under {self.folder}"
        if self.skipped:
            reasons = collections.Counter(r for _, r in self.skipped)
            parts = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
            line += f"; skipped {len(self.skipped)} ({parts}): {skipped_names(self.skipped)}"
        if self.empty_classes:
            line += f"; empty class folders: {', '.join(self.empty_classes)}"
        return line + "."


def skipped_names(skipped: Sequence[Tuple[str, str]], *, most: int = 5) -> str:
    """Lists the first `most` skipped paths, each with its reason, and how many more."""
    names = ", ".join(f"{path} ({reason})" for path, reason in skipped[:most])
    more = len(skipped) - most
    return names + (f" and {more} more" if more > 0 else "")


def check_options(on_bad_file: str, verify: str) -> None:
    """Raises ValueError for an unknown `on_bad_file` or `verify`."""
    if on_bad_file not in ON_BAD_FILE:
        raise ValueError(f"`on_bad_file` must be one of {ON_BAD_FILE}. "
                         f"Received: on_bad_file={on_bad_file!r}.")
    if verify not in VERIFY:
        raise ValueError(f"`verify` must be one of {VERIFY}. "
                         f"Received: verify={verify!r}.")


def jpeg_problem(path: str) -> Optional[str]:
    """Checks a JPEG's first and last bytes (cheaply); None when it looks whole.

    Catches a non-image with a .jpeg name, an empty file, and a truncated
    JPEG (no end-of-image marker). Corruption inside the data needs
    `decode_problem`.
    """
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(3)
            f.seek(max(0, size - 1024))
            tail = f.read()
    except OSError as error:
        return f"unreadable ({error.strerror})"
    if size == 0:
        return "empty file"
    if head != _JPEG_START:
        return "not a JPEG"
    if not tail.rstrip(b"\0").endswith(_JPEG_END):
        return "truncated JPEG"
    return None


def decode_problem(path: str) -> Optional[str]:
    """Decodes a JPEG fully; None when TF can decode it."""
    try:
        contents = tf.io.read_file(path)
        tf.io.decode_jpeg(contents)
    except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError,
            tf.errors.DataLossError):
        return "corrupt JPEG"
    return None


def first_undecodable(paths: Sequence[str], *, chunk: int = 256) -> Optional[str]:
    """Finds the first of `paths` that TF cannot decode, or None; stops at the first bad chunk."""
    for start in range(0, len(paths), chunk):
        part = list(paths[start:start + chunk])
        problems = _decode_all(part, decode_problem)
        for path in part:
            if path in problems:
                return path
    return None


def split_listing(listing: FolderListing, *, test_fraction: float = 0.2,
                  seed: int = 0) -> Tuple[FolderListing, FolderListing]:
    """Splits a listing into (train, test), per class, with a seed.

    Each class with n >= 2 images gives max(1, round(test_fraction * n)) of them,
    chosen by `seed`, to test and keeps the rest (at least one) for training.

    Args:
        listing: The listing of a class-per-folder tree (`scan_folder`).
        test_fraction: The share of each class's images given to the test split.
        seed: Seeds the choice of test images.

    Returns:
        The pair `(train, test)` of listings, with the class names of `listing`.

    Raises:
        ValueError: If `test_fraction` is not in (0, 1).
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"`test_fraction` must be in (0, 1). "
                         f"Received: test_fraction={test_fraction!r}.")
    rng = random.Random(seed)
    test = set()
    for label in range(len(listing.class_names)):
        files = [f for f, lab in zip(listing.files, listing.labels) if lab == label]
        if len(files) >= 2:
            count = min(len(files) - 1, max(1, round(test_fraction * len(files))))
            test.update(rng.sample(files, count))

    def part(keep) -> FolderListing:
        pairs = [(f, lab) for f, lab in zip(listing.files, listing.labels) if keep(f)]
        return dataclasses.replace(listing, files=tuple(f for f, _ in pairs),
                                   labels=tuple(lab for _, lab in pairs), subset=True)
    return part(lambda f: f not in test), part(lambda f: f in test)


def _check_files(paths: Sequence[str], verify: str) -> Dict[str, str]:
    if verify == "none":
        return {}
    problems = {}
    for path in paths:
        problem = jpeg_problem(path)
        if problem:
            problems[path] = problem
    if verify == "decode":
        rest = [p for p in paths if p not in problems]
        problems.update(_decode_all(rest, decode_problem))
    return problems


def _decode_all(paths: Sequence[str],
                check: Callable[[str], Optional[str]]) -> Dict[str, str]:
    # TF ops release the GIL: one thread per core decodes in parallel. New
    # threads execute eagerly, whatever graph the caller is building.
    with _without_libjpeg_lines(), concurrent.futures.ThreadPoolExecutor(
            os.cpu_count()) as pool:
        results = list(pool.map(check, paths))
    return {p: r for p, r in zip(paths, results) if r}


@contextlib.contextmanager
def _without_libjpeg_lines():
    """Drops libjpeg's own warnings (`Corrupt JPEG data: ...`) from stderr meanwhile.

    libjpeg writes them to file descriptor 2 for each bad file decoded, before TF's
    error; the scan names the file itself. What else reaches stderr meanwhile is
    written after, unchanged.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = [line for line in captured.read().splitlines(keepends=True)
                    if not LIBJPEG_WARNING.match(line.decode(errors="replace"))]
            if kept:
                os.write(2, b"".join(kept))


def _subfolders(folder: str) -> Tuple[str, ...]:
    names = [e.name for e in os.scandir(folder)
             if e.is_dir() and not e.name.startswith((".", "__MACOSX"))]
    return tuple(sorted(names))


def _entries(class_dir: str) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    images, others = [], []
    for entry in os.scandir(class_dir):
        if not entry.is_file():
            continue
        if entry.name.lower().endswith(IMAGE_EXTENSIONS):
            images.append(entry.path)
        elif not entry.name.startswith("."):
            # Hidden files (.DS_Store) are not data; anything else is.
            others.append(entry.path)
    return tuple(sorted(images)), tuple(sorted(others))


def scan_folder(folder: str, *, class_names: Optional[Sequence[str]] = None,
                on_bad_file: str = "raise", verify: str = "header",
                log: Optional[Callable[[str], None]] = None) -> FolderListing:
    """Lists and checks `folder`/CLASS/*.jpeg.

    Args:
        folder: Holds one sub-folder per class.
        class_names: The classes, in label order. None: the sorted names of
            the sub-folders. Give the training split's names to the other
            splits so that labels agree even if a folder is missing.
        on_bad_file: 'raise' stops at the first problem with an error naming
            it; 'skip' leaves bad files and unknown folders out and counts
            them in one log line.
        verify: 'header' checks each JPEG's first and last bytes (cheap);
            'decode' also decodes every image (slow, catches corruption
            inside the data); 'none' trusts the files.
        log: Receives the summary line when something was skipped; default
            TF's logging at WARNING.

    Returns:
        A `FolderListing`.

    Raises:
        ValueError: If an option is unknown.
        BadDataError: If the folder is missing or has no images, or, with
            'raise', a file is not a readable JPEG, a class folder is empty,
            missing or not in `class_names`.
    """
    check_options(on_bad_file, verify)
    folder = os.path.abspath(folder)
    if not os.path.isdir(folder):
        raise BadDataError(f"Image folder {folder} does not exist.",
                           path=folder)
    present = _subfolders(folder)
    if not present:
        raise BadDataError(
            f"Image folder {folder} holds no class folders; expected "
            f"{folder}/CLASS/*.jpeg.", path=folder)
    names = tuple(class_names) if class_names is not None else present
    if len(set(names)) != len(names) or not names:
        raise ValueError("`class_names` must be distinct and non-empty. "
                         f"Received: class_names={class_names!r}.")
    skip = on_bad_file == "skip"
    skipped, empty = [], []

    def bad(path: str, reason: str, message: str) -> None:
        """Raises BadDataError for `path`, or records it as skipped.

        Args:
            path: The file.
            reason: Why it is left out (the skipped list's words).
            message: The error's text, before the hint to skip such files.
        """
        if not skip:
            raise BadDataError(
                f"{message} {errors.SKIP_BAD_FILES} to leave such files out.",
                path=path)
        skipped.append((path, reason))

    for unknown in sorted(set(present) - set(names)):
        path = os.path.join(folder, unknown)
        bad(path, "unknown class folder",
            f"Class folder {path} is not one of the classes {list(names)}.")
    files, labels = [], []
    for label, name in enumerate(names):
        class_dir = os.path.join(folder, name)
        if name not in present:
            images, others = (), ()
        else:
            images, others = _entries(class_dir)
        for other in others:
            bad(other, "not an image",
                f"{other} is not an image (expected {IMAGE_EXTENSIONS}).")
        problems = _check_files(images, verify)
        for path in images:
            if path in problems:
                bad(path, problems[path], f"{path} is a bad image: "
                    f"{problems[path]}.")
            else:
                files.append(path)
                labels.append(label)
        if not images or all(p in problems for p in images):
            if not skip:
                raise BadDataError(
                    f"Class folder {class_dir} has no usable image (class "
                    f"{name!r}). {errors.SKIP_BAD_FILES} to keep the class "
                    "with no examples.", path=class_dir)
            empty.append(name)
    if not files:
        raise BadDataError(f"Image folder {folder} holds no usable image.",
                           path=folder)
    listing = FolderListing(folder=folder, class_names=names,
                            files=tuple(files), labels=tuple(labels),
                            skipped=tuple(skipped), empty_classes=tuple(empty))
    if skipped or empty:
        (log or tf.compat.v1.logging.warning)(listing.summary())
    return listing
