"""docs/MIGRATION.md cannot rot: every tagged snippet runs, every topic has 3 columns.

A snippet is a fenced block whose info string is `python run:<topic>:<column>`
(`python run:prelude` for the shared set-up). Each runs in a fresh namespace after
the prelude, with tempfile directories under the test's temporary directory and the
legacy aliases installed (estimator_lib.compat.install).
"""

import contextlib
import io
import os
import re
import tempfile
from unittest import mock

import pytest
import tensorflow as tf
from absl.testing import parameterized

from estimator_lib import compat
from estimator_lib.legacy import unsupported

pytestmark = pytest.mark.timeout(300)

_DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "docs", "MIGRATION.md")
_BLOCK = re.compile(r"^```python run:(?P<tag>[\w:]+)\n(?P<code>.*?)^```$", re.M | re.S)
_COLUMNS = ("legacy", "estimator_lib", "tf2")
# The topics the migration reference must cover, each in all three columns.
_TOPICS = ("model_to_estimator", "model_fn", "input_fn", "hooks", "run_config",
           "train_and_evaluate", "parameter_servers", "exporters", "early_stopping",
           "warm_start", "canned", "tpu_estimator")


def _read_doc() -> str:
    with open(_DOC, encoding="utf-8") as f:
        return f.read()


def _snippets():
    """{tag: code} of the doc's runnable blocks, in order."""
    snippets = {}
    for match in _BLOCK.finditer(_read_doc()):
        tag = match.group("tag")
        if tag in snippets:
            raise ValueError(f"Duplicate snippet tag {tag!r} in {_DOC}.")
        snippets[tag] = match.group("code")
    return snippets


_SNIPPETS = _snippets()


def setUpModule():
    compat.install()


def tearDownModule():
    compat.uninstall()


class MigrationDocTest(parameterized.TestCase, tf.test.TestCase):

    def test_every_topic_has_three_columns(self):
        for topic in _TOPICS:
            for column in _COLUMNS:
                self.assertIn(f"{topic}:{column}", _SNIPPETS)

    def test_every_snippet_is_a_known_topic_and_column(self):
        for tag in _SNIPPETS:
            if tag == "prelude":
                continue
            topic, column = tag.split(":")
            self.assertIn(column, _COLUMNS, tag)
            self.assertIn(topic, _TOPICS + ("hook_callback",), tag)

    def test_unsupported_table_lists_every_unsupported_name(self):
        text = _read_doc()
        table = text[text.index("## What cannot be supported"):]
        for name, alternative in unsupported.UNSUPPORTED.items():
            self.assertIn(f"`{name}`", table)
            # The doc states the same alternative as the error message (formatting aside).
            self.assertIn(alternative.replace("`", "")[:40],
                          table.replace("`", ""), name)

    @parameterized.named_parameters(
        *[(tag.replace(":", "_"), tag) for tag in _SNIPPETS if tag != "prelude"])
    def test_snippet_runs(self, tag):
        namespace = {"__name__": f"migration_doc_{tag.replace(':', '_')}"}
        stdout = io.StringIO()
        tf.keras.backend.clear_session()
        temp_root = tempfile.mkdtemp(dir=self.get_temp_dir())
        # A snippet may set TF_CONFIG, as a task's launcher would: restored after.
        with mock.patch.object(tempfile, "tempdir", temp_root), \
                mock.patch.dict(os.environ), contextlib.redirect_stdout(stdout):
            for name in ("prelude", tag):
                code = compile(_SNIPPETS[name], f"{_DOC}:{name}", "exec")
                exec(code, namespace)  # pylint: disable=exec-used
        if tag.startswith(("hooks:", "hook_callback:")):
            self.assertEqual(stdout.getvalue().strip().splitlines()[-1], "3")
        if tag.startswith("parameter_servers:"):
            self.assertEqual(stdout.getvalue().splitlines()[0], "worker 1 1")
        if tag in ("parameter_servers:legacy", "parameter_servers:estimator_lib"):
            self.assertEqual(stdout.getvalue().splitlines()[1],
                             "['/job:ps', '/job:worker/task:1']")


if __name__ == "__main__":
    tf.test.main()
