"""Extracting a zip archive safely, and resumably.

Every entry is checked before anything is written: an absolute path, a `..`
component, a drive letter or a symbolic link rejects the whole archive, so a
hostile archive cannot write outside the destination. Files already present
with the right size are kept, so an interrupted extraction resumes; each
file is written under a temporary name and renamed when complete.
"""

import os
import shutil
import stat
import zipfile
from typing import Callable, Optional

from estimator_lib.datasets.errors import BadDataError

Progress = Callable[[int, int], None]


def unsafe_reason(name: str) -> Optional[str]:
    """Returns why an archive entry name could escape the destination, or None."""
    normalized = name.replace("\\", "/")
    if normalized.startswith("/"):
        return "absolute path"
    if len(normalized) > 1 and normalized[1] == ":":
        return "drive letter"
    if ".." in normalized.split("/"):
        return "'..' component"
    return None


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def check_archive(zip_path: str) -> int:
    """Checks every entry of a zip; returns the number of entries.

    Raises:
        BadDataError: If the file is not a readable zip, or an entry is
            unsafe; the message names the archive and the entry.
    """
    try:
        with zipfile.ZipFile(zip_path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError) as error:
        raise BadDataError(
            f"{zip_path} is not a readable zip archive ({error}); it may be "
            "truncated: delete it and download again.", path=zip_path) from None
    for info in infos:
        reason = unsafe_reason(info.filename)
        if reason is None and _is_symlink(info):
            reason = "symbolic link"
        if reason:
            raise BadDataError(
                f"Refusing to extract {zip_path}: entry {info.filename!r} is "
                f"unsafe ({reason}). Nothing was extracted.", path=zip_path)
    return len(infos)


def extract(zip_path: str, destination: str, *,
            progress: Optional[Progress] = None) -> int:
    """Extracts a zip into `destination`, safely and resumably.

    Args:
        zip_path: The archive.
        destination: Folder to extract into (created if needed).
        progress: Called as progress(entries_done, entries_total) after each
            entry.

    Returns:
        The number of files written (files already complete are not counted).

    Raises:
        BadDataError: If the archive is unreadable or holds an unsafe entry.
    """
    total = check_archive(zip_path)
    os.makedirs(destination, exist_ok=True)
    root = os.path.realpath(destination)
    written = 0
    with zipfile.ZipFile(zip_path) as archive:
        for done, info in enumerate(archive.infolist(), start=1):
            target = os.path.realpath(os.path.join(root, info.filename))
            if os.path.commonpath([root, target]) != root:
                raise BadDataError(
                    f"Refusing to extract {zip_path}: entry "
                    f"{info.filename!r} resolves outside {destination}.",
                    path=zip_path)
            if info.is_dir():
                os.makedirs(target, exist_ok=True)
            elif not (os.path.isfile(target)
                      and os.path.getsize(target) == info.file_size):
                _write(archive, info, target)
                written += 1
            if progress:
                progress(done, total)
    return written


def _write(archive: zipfile.ZipFile, info: zipfile.ZipInfo,
           target: str) -> None:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    partial = target + ".partial"
    try:
        with archive.open(info) as source, open(partial, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        os.replace(partial, target)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        if os.path.exists(partial):
            os.remove(partial)
        raise BadDataError(
            f"Could not extract {info.filename!r} from {archive.filename} "
            f"({error}); the archive may be truncated: delete it and download "
            "again.", path=archive.filename) from None
