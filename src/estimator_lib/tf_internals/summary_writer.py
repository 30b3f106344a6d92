"""Swapping TensorFlow's summary FileWriter class (the original's FakeSummaryWriter).

Legacy hook tests install `FakeSummaryWriter` (legacy/fake_summary_writer.py) in place
of TensorFlow's FileWriter, as the original's test helper did: the class is held by
two private modules, `summary.writer.writer` and `summary.writer.writer_cache`
(SummarySaverHook and StepCounterHook build their writers through the cache).
"""

from tensorflow.python.summary.writer import writer
from tensorflow.python.summary.writer import writer_cache


def file_writer_class():
    """TensorFlow's FileWriter class as it is now."""
    return writer.FileWriter


def set_file_writer_class(cls) -> None:
    """Makes `cls` the FileWriter class TensorFlow's writers and cache build."""
    writer.FileWriter = cls
    writer_cache.FileWriter = cls
