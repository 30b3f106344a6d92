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
