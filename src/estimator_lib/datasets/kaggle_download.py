"""Downloading a Kaggle dataset through the `kaggle` package.

`kaggle` is imported only when a download runs: importing it prints, creates
folders under the home directory and tries to authenticate. Credentials are
looked for first, without importing it, so that their absence is one clear
line (a `DownloadError`) rather than kaggle's help text and a SystemExit.
Every failure is a `DownloadError` whose message is one line and never holds
a credential. The download resumes (kaggle's own resume), and the archive is
extracted safely and resumably (see `archive`).
"""

import contextlib
import io
import json
import os
import re
from typing import Any, Callable, Mapping, Optional

from estimator_lib.datasets import archive
from estimator_lib.datasets.errors import DownloadError

MISSING_CREDENTIALS = (
    "No Kaggle credentials found: set KAGGLE_USERNAME and KAGGLE_KEY, or "
    "KAGGLE_API_TOKEN, or put kaggle.json (from kaggle.com > Settings > API) "
    "in ~/.kaggle/ (or $KAGGLE_CONFIG_DIR).")
_SECRET_VARIABLES = ("KAGGLE_KEY", "KAGGLE_API_TOKEN")


def _config_dirs(environ: Mapping[str, str], home: str) -> list:
    dirs = []
    if environ.get("KAGGLE_CONFIG_DIR"):
        dirs.append(environ["KAGGLE_CONFIG_DIR"])
    dirs.append(os.path.join(home, ".kaggle"))
    dirs.append(os.path.join(environ.get("XDG_CONFIG_HOME")
                             or os.path.join(home, ".config"), "kaggle"))
    return dirs


def find_credentials(environ: Optional[Mapping[str, str]] = None,
                     home: Optional[str] = None) -> Optional[str]:
    """Says where Kaggle credentials are, without reading them out.

    Args:
        environ: The environment to look in; default `os.environ`.
        home: The home directory; default `~`.

    Returns:
        A description of the source (e.g. 'KAGGLE_USERNAME/KAGGLE_KEY' or a
        kaggle.json path), or None when there are none.
    """
    environ = os.environ if environ is None else environ
    home = os.path.expanduser("~") if home is None else home
    if environ.get("KAGGLE_USERNAME") and environ.get("KAGGLE_KEY"):
        return "KAGGLE_USERNAME/KAGGLE_KEY"
    if environ.get("KAGGLE_API_TOKEN"):
        return "KAGGLE_API_TOKEN"
    for directory in _config_dirs(environ, home):
        for name in ("kaggle.json", "access_token", "access_token.txt",
                     "credentials.json"):
            path = os.path.join(directory, name)
            if os.path.isfile(path) and os.path.getsize(path) > 0:
                return path
    return None


def _secrets(environ: Mapping[str, str], home: str) -> list:
    values = [environ.get(name) for name in _SECRET_VARIABLES]
    for directory in _config_dirs(environ, home):
        try:
            with open(os.path.join(directory, "kaggle.json")) as f:
                values.append(json.load(f).get("key"))
        except (OSError, ValueError, AttributeError):
            pass
    return [v for v in values if v and len(v) >= 4]


def scrub(message: str, secrets: list) -> str:
    """Returns one line of `message`, with every secret replaced by '***'."""
    for secret in secrets:
        message = message.replace(secret, "***")
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    line = lines[0] if lines else ""
    return re.sub(r"\s+", " ", line)[:300]


def _import_api() -> Any:
    # kaggle authenticates at import and prints help when it cannot: keep
    # its output off the console and turn SystemExit into our error.
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            import kaggle  # pylint: disable=import-outside-toplevel
            api = kaggle.api
            api.authenticate()
        except SystemExit:
            raise DownloadError(MISSING_CREDENTIALS) from None
    return api


def _reason(error: BaseException, secrets: list) -> str:
    text = scrub(str(error), secrets) or type(error).__name__
    status = getattr(getattr(error, "response", None), "status_code", None)
    if status in (401, 403):
        return (f"Kaggle refused the credentials (HTTP {status}); check them, "
                "and accept the dataset's terms on kaggle.com")
    if status == 404:
        return "no such dataset on Kaggle (HTTP 404)"
    if any(word in text for word in ("Connection", "resolve", "Network",
                                     "Max retries", "timed out")):
        cause = re.search(r"Failed to resolve '[^']+'|Connection refused|"
                          r"timed out|Network is unreachable", text)
        return ("no network connection to Kaggle "
                f"({cause.group(0) if cause else text[:120]})")
    return text


def download_dataset(dataset: str, data_dir: str, *, force: bool = False,
                     quiet: bool = False, keep_archive: bool = False,
                     progress: Optional[archive.Progress] = None,
                     api_factory: Optional[Callable[[], Any]] = None,
                     environ: Optional[Mapping[str, str]] = None) -> str:
    """Downloads and unzips a Kaggle dataset into `data_dir`.

    Args:
        dataset: 'owner/name', e.g. 'paultimothymooney/kermany2018'.
        data_dir: Where the archive goes and is extracted.
        force: Download and extract again even if already done.
        quiet: Hide kaggle's progress display.
        keep_archive: Keep the zip after a complete extraction.
        progress: Called as progress(entries_done, entries_total) while
            extracting.
        api_factory: Returns an object with kaggle's `dataset_download_files`
            (for tests); default imports kaggle and authenticates.
        environ: Where to look for credentials; default `os.environ`.

    Returns:
        `data_dir`.

    Raises:
        ValueError: If `dataset` is not 'owner/name'.
        DownloadError: If credentials are missing or refused, the network is
            down, or the archive is bad; the message is one line.
    """
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", dataset or ""):
        raise ValueError("`dataset` must be 'owner/name'. "
                         f"Received: dataset={dataset!r}.")
    name = dataset.split("/")[1]
    marker = os.path.join(data_dir, f".{name}.complete")
    if os.path.exists(marker) and not force:
        return data_dir
    environ = os.environ if environ is None else environ
    home = os.path.expanduser("~")
    secrets = _secrets(environ, home)
    if api_factory is None:
        if find_credentials(environ, home) is None:
            raise DownloadError(MISSING_CREDENTIALS)
        api_factory = _import_api
    try:
        os.makedirs(data_dir, exist_ok=True)
    except OSError as error:
        raise DownloadError(f"Cannot create `data_dir` {data_dir} "
                            f"({error.strerror}).") from None
    try:
        api = api_factory()
        api.dataset_download_files(dataset, path=data_dir, force=force,
                                   quiet=quiet, unzip=False)
    except DownloadError:
        raise
    except (Exception, SystemExit) as error:  # kaggle raises many kinds.
        raise DownloadError(f"Could not download {dataset}: "
                            f"{_reason(error, secrets)}.") from None
    zip_path = os.path.join(data_dir, name + ".zip")
    if not os.path.isfile(zip_path):
        raise DownloadError(f"Downloading {dataset} left no {zip_path}.")
    try:
        archive.extract(zip_path, data_dir, progress=progress)
    except ValueError as error:
        raise DownloadError(scrub(str(error), secrets)) from None
    with open(marker, "w") as f:
        f.write(dataset + "\n")
    if not keep_archive:
        os.remove(zip_path)
    return data_dir
