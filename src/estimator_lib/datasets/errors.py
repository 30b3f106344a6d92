"""Exceptions that datasets/ raises for bad data and failed downloads."""

from typing import Optional


class BadDataError(ValueError):
    """A data file or folder is unusable; the message names it.

    Attributes:
        path: The file or folder at fault.
    """

    def __init__(self, message: str, *, path: Optional[str] = None):
        super().__init__(message)
        self.path = path


class DownloadError(RuntimeError):
    """A download could not run; the message is one line saying what to do.

    Binaries print `str(error)` and exit non-zero: no traceback is needed,
    and the message never holds a credential.
    """


# The remedies messages name, as a Python caller writes them. The binaries name their
# flag or command instead (estimator_lib/bin/cli.py maps each of these).
SKIP_BAD_FILES = "Pass on_bad_file='skip'"
DOWNLOAD_OCT = "download_oct(data_dir)"
USE_SYNTHETIC = "synthetic_data=True"
CONVERT_TO_TFRECORDS = "convert_folder_to_tfrecords(image_folder, output_dir)"
REMEDIES = (SKIP_BAD_FILES, DOWNLOAD_OCT, USE_SYNTHETIC, CONVERT_TO_TFRECORDS)
