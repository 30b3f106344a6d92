"""docs/multi_worker.md's parameter-server section cannot rot.

Its launch commands run (through bash, with `python` a shell function that prints
the TF_CONFIG and arguments each task gets, so nothing starts); the TF_CONFIGs give
the roles and default device_filters the section states; and the two error messages
it quotes are the ones the library builds (the network answers faked). census.py,
the program the section points to, is run as every role by parameter_servers_test.py.
"""

import atexit
import importlib.util
import itertools
import json
import os
import re
import subprocess
from unittest import mock

import tensorflow as tf

import estimator_lib as el
from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.core import environment
from estimator_lib.distribute import cluster_wait
from estimator_lib.distribute import parameter_servers
from estimator_lib.training import session as session_lib

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
_DOC = os.path.join(_ROOT, "docs", "multi_worker.md")
_HEADING = "# Parameter-server training"
_BLOCK = re.compile(r"^```(?P<lang>\w*)\n(?P<code>.*?)^```$", re.M | re.S)
# Stands in for `python`: prints what the task would get, one line each.
_PYTHON_STUB = 'python() { printf "%s\\n" "$TF_CONFIG" "$*"; }\n'


def _section() -> str:
    with open(_DOC, encoding="utf-8") as f:
        text = f.read()
    return text[text.index(_HEADING):]


def _blocks(lang):
    return [m.group("code") for m in _BLOCK.finditer(_section()) if m.group("lang") == lang]


def _launched_tasks():
    """[(TF_CONFIG dict, arguments)] of the section's launch commands, in order."""
    script = _blocks("sh")[0]
    lines = subprocess.run(["bash", "-euc", _PYTHON_STUB + script], capture_output=True,
                           text=True, check=True, timeout=60).stdout.splitlines()
    return [(json.loads(tf_config), args) for tf_config, args in zip(lines[::2], lines[1::2])]


def _run_config(tf_config):
    with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(tf_config)}):
        return el.RunConfig()


def _documented_device_filters():
    """{task type: filters} from the sentence on RunConfig's default device_filters."""
    sentence = re.search(r"`device_filters` \((.*?)\)\.", _section(), re.S).group(1)
    filters = {}
    for part in sentence.split(";"):
        task, _, devices = part.partition(":")
        filters[task.split()[0]] = [d.replace("task:i", "task:0")
                                    for d in re.findall(r"`([^`]+)`", devices)]
    return filters


def _refused_for(host):
    """socket.create_connection, faked: `host` refuses, every other address accepts."""
    def create_connection(address, timeout=None):
        if address[0] == host:
            raise ConnectionRefusedError(address)
        return mock.MagicMock()
    return create_connection


class ParameterServerDocTest(tf.test.TestCase):

    def test_launch_commands_start_every_role_with_one_cluster(self):
        tasks = _launched_tasks()
        self.assertEqual([tf_config["task"] for tf_config, _ in tasks],
                         [{"type": task_type, "index": 0}
                          for task_type in ("ps", "chief", "worker", "evaluator")])
        self.assertLen({json.dumps(tf_config["cluster"], sort_keys=True)
                        for tf_config, _ in tasks}, 1)
        for _, args in tasks:
            module, program = re.fullmatch(r"-m (\S+) (\S+)", args).groups()
            self.assertIsNotNone(importlib.util.find_spec(module), module)
            self.assertEqual(program, "trainer.py")

    def test_each_task_gets_its_role_and_the_documented_device_filters(self):
        documented = _documented_device_filters()
        self.assertCountEqual(documented, ["chief", "worker", "master"])
        for tf_config, _ in _launched_tasks():
            config = _run_config(tf_config)
            task_type = tf_config["task"]["type"]
            self.assertEqual((config.task_type, config.task_id), (task_type, 0))
            self.assertEqual(parameter_servers.is_ps_training(config),
                             task_type != "evaluator")
            if task_type in documented:
                self.assertEqual(list(config.session_config.device_filters),
                                 documented[task_type])
        # "The older naming: "master" in place of "chief"".
        tf_config = _launched_tasks()[1][0]
        cluster = dict(tf_config["cluster"])
        cluster["master"] = cluster.pop("chief")
        config = _run_config({"cluster": cluster, "task": {"type": "master", "index": 0}})
        self.assertTrue(config.is_chief)
        self.assertEqual(list(config.session_config.device_filters), documented["master"])

    def test_the_killed_ps_message_is_the_librarys(self):
        quoted = [code.strip() for code in _blocks("")
                  if "parameter-server job stopped" in code]
        self.assertLen(quoted, 1)
        model_dir, newest = re.search(r"newest checkpoint \(((.*)/[^/]*)\)",
                                      quoted[0]).group(2, 1)
        cluster = _launched_tasks()[1][0]["cluster"]
        ps_host = cluster["ps"][0].rpartition(":")[0]
        with mock.patch.object(cluster_wait.socket, "create_connection",
                               _refused_for(ps_host)), \
                mock.patch.object(tf.train, "latest_checkpoint", return_value=newest), \
                mock.patch.object(tf_patches, "abandon_closing_sessions"), \
                mock.patch.object(atexit, "register"):
            error = session_lib._stopped_task_error(  # pylint: disable=protected-access
                cluster, model_dir,
                session_lib._RECREATION_CAUSE[session_lib._PARAMETER_SERVER],  # pylint: disable=protected-access
                job=session_lib._PARAMETER_SERVER)  # pylint: disable=protected-access
        self.assertEqual(f"RuntimeError: {error}", quoted[0])

    def test_the_start_up_wait_message_is_the_librarys(self):
        quoted = re.search(r"`(RuntimeError: Parameter-server training waited .*?) \.\.\.`",
                           _section()).group(1)
        tf_config = _launched_tasks()[1][0]
        config = _run_config(tf_config)
        ps_host = tf_config["cluster"]["ps"][0].rpartition(":")[0]
        clock = mock.MagicMock()
        clock.monotonic.side_effect = itertools.count(0, environment.DEFAULT_WAIT_SECS + 1)
        with mock.patch.dict(os.environ), \
                mock.patch.object(cluster_wait.socket, "create_connection",
                                  _refused_for(ps_host)), \
                mock.patch.object(parameter_servers, "time", clock):
            os.environ.pop(cluster_wait.WAIT_SECS_VARIABLE, None)  # The default bound.
            with self.assertRaises(RuntimeError) as raised:
                parameter_servers.wait_for_tasks(config)
        self.assertStartsWith(f"RuntimeError: {raised.exception}", quoted)


if __name__ == "__main__":
    tf.test.main()
