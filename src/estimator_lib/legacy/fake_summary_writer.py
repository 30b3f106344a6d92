"""The original's `hooks/fake_summary_writer.py`: a FileWriter that records, for tests.

`FakeSummaryWriter.install()` makes TensorFlow's summary FileWriter (and the
FileWriterCache's) this class until `uninstall()`; summaries, graphs and session
logs are then kept in memory and checked with `assert_summaries`. Legacy hook tests
import it from `tensorflow_estimator.python.estimator.hooks.fake_summary_writer`.
"""

from tensorflow.core.framework import summary_pb2
# tf.test's MetaGraph comparison (graph functions and collections compared as the
# original's FakeSummaryWriter compared them); tf.test.TestCase does not expose it.
from tensorflow.python.framework import test_util

from estimator_lib.tf_internals import summary_writer


class FakeSummaryWriter:
    """Records what a FileWriter would write, per global step."""

    _replaced_summary_writer = None

    @classmethod
    def install(cls) -> None:
        """Replaces TensorFlow's FileWriter with this class (a test helper's patch).

        Raises:
            ValueError: If it is installed already.
        """
        if cls._replaced_summary_writer:
            raise ValueError("FakeSummaryWriter already installed.")
        cls._replaced_summary_writer = summary_writer.file_writer_class()
        summary_writer.set_file_writer_class(FakeSummaryWriter)

    @classmethod
    def uninstall(cls) -> None:
        """Puts TensorFlow's FileWriter back.

        Raises:
            ValueError: If it is not installed.
        """
        if not cls._replaced_summary_writer:
            raise ValueError("FakeSummaryWriter not installed.")
        summary_writer.set_file_writer_class(cls._replaced_summary_writer)
        cls._replaced_summary_writer = None

    def __init__(self, logdir, graph=None):
        self._logdir = logdir
        self._graph = graph
        self._summaries = {}
        self._added_graphs = []
        self._added_meta_graphs = []
        self._added_session_logs = []
        self._added_run_metadata = {}

    @property
    def summaries(self):
        """Global step -> the Summary protos added at it."""
        return self._summaries

    def assert_summaries(self, test_case, expected_logdir=None, expected_graph=None,
                         expected_summaries=None, expected_added_graphs=None,
                         expected_added_meta_graphs=None, expected_session_logs=None):
        """Asserts, with `test_case`'s assertions, what was added.

        `expected_summaries` maps a step to {tag: simple_value} (`global_step/sec`
        ignored: its count depends on timing).

        Args:
            test_case: The `tf.test.TestCase` whose assertions are used.
            expected_logdir: The log directory expected, or None to skip.
            expected_graph: The graph expected, or None.
            expected_summaries: A dict of step to {tag: simple value}, or None.
            expected_added_graphs: The graphs expected to have been added, or None.
            expected_added_meta_graphs: The meta graphs expected, or None.
            expected_session_logs: The session logs expected, or None.
        """
        if expected_logdir is not None:
            test_case.assertEqual(expected_logdir, self._logdir)
        if expected_graph is not None:
            test_case.assertTrue(expected_graph is self._graph)
        for step, expected in (expected_summaries or {}).items():
            test_case.assertTrue(
                step in self._summaries,
                msg=f"Missing step {step} from {self._summaries.keys()}.")
            actual = {}
            for step_summary in self._summaries[step]:
                for value in step_summary.value:
                    if value.tag != "global_step/sec":
                        actual[value.tag] = value.simple_value
            test_case.assertEqual(expected, actual)
        if expected_added_graphs is not None:
            test_case.assertEqual(expected_added_graphs, self._added_graphs)
        if expected_added_meta_graphs is not None:
            test_case.assertEqual(len(expected_added_meta_graphs), len(self._added_meta_graphs))
            for expected, actual in zip(expected_added_meta_graphs, self._added_meta_graphs):
                test_util.assert_meta_graph_protos_equal(test_case, expected, actual)
        if expected_session_logs is not None:
            test_case.assertEqual(expected_session_logs, self._added_session_logs)

    def add_summary(self, summ, current_global_step):
        """Records a Summary proto (or its serialized bytes) at the step."""
        if isinstance(summ, bytes):
            proto = summary_pb2.Summary()
            proto.ParseFromString(summ)
            summ = proto
        self._summaries.setdefault(current_global_step, []).append(summ)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Records `graph`.

        Args:
            graph: The graph.
            global_step: The step, or None.
            graph_def: Must be None.

        Raises:
            ValueError: If `global_step` is negative or a `graph_def` is given.
        """
        if global_step is not None and global_step < 0:
            raise ValueError(f"Invalid global_step {global_step}.")
        if graph_def is not None:
            raise ValueError(f"Unexpected graph_def {graph_def}.")
        self._added_graphs.append(graph)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Records `meta_graph_def`.

        Args:
            meta_graph_def: The `MetaGraphDef`.
            global_step: The step, or None.

        Raises:
            ValueError: If `global_step` is negative.
        """
        if global_step is not None and global_step < 0:
            raise ValueError(f"Invalid global_step {global_step}.")
        self._added_meta_graphs.append(meta_graph_def)

    def add_session_log(self, session_log, global_step=None):
        """Records `session_log` (not its step, whose value depends on timing).

        Args:
            session_log: The `SessionLog`.
            global_step: The step (ignored).
        """
        del global_step  # Its value depends on timing.
        self._added_session_logs.append(session_log)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Records `run_metadata` under `tag`.

        Args:
            run_metadata: The `RunMetadata`.
            tag: Its tag.
            global_step: The step, or None.

        Raises:
            ValueError: If `global_step` is negative.
        """
        if global_step is not None and global_step < 0:
            raise ValueError(f"Invalid global_step {global_step}.")
        self._added_run_metadata[tag] = run_metadata

    def flush(self):
        """Does nothing: everything is kept in memory."""
        pass

    def reopen(self):
        """Does nothing: the writer is never closed."""
        pass

    def close(self):
        """Does nothing: what was recorded stays readable."""
        pass
