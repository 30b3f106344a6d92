r"""The original's `tools/checkpoint_converter.py`: canned v1 checkpoints to v2 names.

A canned DNN, Linear or DNNLinearCombined estimator trained with the v1 API
(`tf.compat.v1.train.*Optimizer`) writes slot variables such as
`dnn/hiddenlayer_0/kernel/t_0/Adagrad` or `linear/linear_model/x/weights/part_0/Ftrl_1`;
the v2 classes (Keras optimizers) read `training/Adagrad/dnn/hiddenlayer_0/kernel/
accumulator` and `training/Ftrl/linear/linear_model/x/weights/linear`, plus the
optimizer's hyperparameters. This tool writes a checkpoint with the v2 names, the
same values, as the original did (Adam, Adagrad, Ftrl, RMSProp and SGD):

    python -m estimator_lib.legacy.checkpoint_converter dnn \
        /tmp/v1/model.ckpt-100 /tmp/v1/graph.pbtxt /tmp/v2/model.ckpt-100

Also at `tensorflow_estimator.python.estimator.tools.checkpoint_converter` after
`compat.install()`. Faithful to tensorflow-estimator 2.15 in its quirks too: the
hyperparameters are always the Keras optimizer's defaults (its graph lookup never
matched a node), and with two optimizers (DNNLinearCombined) the first pass also
copies the other optimizer's v1 slots under their old names. Not suitable when the
DNN and linear optimizers of a DNNLinearCombined model are of the same kind.
"""

import argparse
import collections.abc
import sys
from typing import Dict

import tensorflow as tf
from google.protobuf import text_format

from estimator_lib.training import session as session_lib

logging = tf.compat.v1.logging

# v1 optimizer name (as in v1 slot names) -> the Keras optimizer's name.
OPT_NAME_V1_TO_V2 = {
    "Adagrad": "Adagrad",
    "RMSProp": "RMSprop",
    "Ftrl": "Ftrl",
    "Adam": "Adam",
    "SGD": "SGD",
}

# Hyperparameters kept as variables in a v1 checkpoint -> their v2 variable.
HP_IN_CKPT = {
    "Adam": {
        "beta1_power": "training/Adam/beta_1",
        "beta2_power": "training/Adam/beta_2",
    },
}

# v1 slot suffix -> v2 slot name (None: no v2 counterpart, dropped).
OPT_VAR_NAME_V1_TO_V2 = {
    "Adam": {"Adam": "m", "Adam_1": "v"},
    "Ftrl": {"Ftrl": "accumulator", "Ftrl_1": "linear"},
    "RMSProp": {"RMSProp": "rms", "RMSProp_1": None},
    "Adagrad": {"Adagrad": "accumulator"},
}

# Hyperparameters a v2 checkpoint holds as variables, by v1 optimizer.
HP_IN_GRAPH = {
    "Adam": ["decay", "learning_rate"],
    "Ftrl": ["decay", "l1_regularization_strength", "l2_regularization_strength", "beta",
             "learning_rate", "learning_rate_power"],
    "RMSProp": ["decay", "learning_rate", "momentum", "rho"],
    "Adagrad": ["decay", "learning_rate"],
    "SGD": ["decay", "learning_rate", "momentum"],
}


class _DefaultOptimizers(collections.abc.Mapping):
    """v1 optimizer name -> a default Keras (tf_keras legacy) optimizer, made when first read.

    The original built them at import; made on use here, so that `compat.install()`,
    which imports this module, creates no Keras object.
    """

    _CLASSES = {"Adagrad": "Adagrad", "Adam": "Adam", "Ftrl": "Ftrl",
                "RMSProp": "RMSprop", "SGD": "SGD"}

    def __init__(self):
        self._made = {}

    def __getitem__(self, name):
        if name not in self._made:
            import tf_keras  # pylint: disable=import-outside-toplevel
            self._made[name] = getattr(tf_keras.optimizers.legacy, self._CLASSES[name])()
        return self._made[name]

    def __iter__(self):
        return iter(self._CLASSES)

    def __len__(self):
        return len(self._CLASSES)


# v1 optimizer name -> a default v2 optimizer (its config gives missing hyperparameters).
OPT_V2_INSTANCE = _DefaultOptimizers()


def _add_new_variable(initial_value, var_name_v2: str, var_name_v1: str,
                      var_map: Dict, var_names_map: Dict) -> None:
    var_map[var_name_v2] = tf.Variable(initial_value, name=var_name_v2)
    var_names_map[var_name_v2] = var_name_v1


def _add_opt_variable(opt_name_v2, var_name_v1, idx, suffix_v2, reader, var_map,
                      var_names_map) -> None:
    var_name_v2 = "training/" + opt_name_v2 + "/" + var_name_v1[:idx] + suffix_v2
    _add_new_variable(reader.get_tensor(var_name_v1), var_name_v2, var_name_v1, var_map,
                      var_names_map)


def _convert_variables_in_ckpt(opt_name_v1, reader, variable_names, var_map, var_names_map,
                               est_type) -> None:
    """Adds every checkpoint variable under its v2 name (hyperparameter, slot or model)."""
    global_step = reader.get_tensor("global_step") if opt_name_v1 == "Adam" else None
    hp_ckpt = HP_IN_CKPT.get(opt_name_v1)
    opt_name_v2 = OPT_NAME_V1_TO_V2[opt_name_v1]
    for var_name in variable_names:
        if hp_ckpt and any(hp_name in var_name for hp_name in hp_ckpt):
            hp_name = next(name for name in hp_ckpt if name in var_name)
            # v1 keeps beta**step (beta1_power); v2 keeps beta itself.
            tensor = tf.math.pow(reader.get_tensor(var_name), 1.0 / global_step)
            _add_new_variable(tensor, hp_ckpt[hp_name], var_name, var_map, var_names_map)
        elif opt_name_v1 in var_name:
            suffix_v1 = var_name.rsplit("/")[-1]
            suffix_v2 = OPT_VAR_NAME_V1_TO_V2[opt_name_v1][suffix_v1]
            if not suffix_v2:
                continue
            # v1 DNN slots sit under `t_0/`, v1 linear ones under `part_0/`; v2 has neither.
            if est_type == "dnn":
                idx = var_name.rfind("t_0")
            elif est_type == "linear":
                idx = var_name.rfind("part_0")
            else:
                idx = var_name.rfind(suffix_v1)
            _add_opt_variable(opt_name_v2, var_name, idx, suffix_v2, reader, var_map,
                              var_names_map)
        else:
            _add_new_variable(reader.get_tensor(var_name), var_name, var_name, var_map,
                              var_names_map)


def _convert_hyper_params_in_graph(graph_from_path, opt_name_v1, var_map,
                                   var_names_map) -> None:
    """Adds the optimizer's v2 hyperparameter variables: from the graph, else defaults."""
    with tf.io.gfile.GFile(graph_from_path) as f:
        graph_def = text_format.Parse(f.read(), tf.compat.v1.GraphDef())
    nodes_full = HP_IN_GRAPH[opt_name_v1]
    nodes_in_graph = []
    opt_name_v2 = OPT_NAME_V1_TO_V2[opt_name_v1]
    logging.info("For hyper parameter variables that are in Graph:")
    for node in graph_def.node:
        node_name = node.name.rsplit("/")[-1]
        # As the original: a "<optimizer>/<name>" key looked up among bare names.
        if opt_name_v1 + "/" + node_name in nodes_full:
            hp_value = node.attr.get("value").tensor.float_val[0]
            hp_name_v2 = "training/" + opt_name_v2 + "/" + node_name
            logging.info(f"Hyper parameter {hp_name_v2} with value {hp_value} found in Graph.")
            _add_new_variable(hp_value, hp_name_v2, node_name, var_map, var_names_map)
            nodes_in_graph.append(node_name)
    config = OPT_V2_INSTANCE[opt_name_v1].get_config()
    logging.info("For hyper parameter variables that are NOT in Graph:")
    for node_name in sorted(set(nodes_full) - set(nodes_in_graph)):
        hp_name_v2 = "training/" + opt_name_v2 + "/" + node_name
        logging.info(f"Hyper parameter {hp_name_v2} with default value "
                     f"{config[node_name]} is added.")
        _add_new_variable(config[node_name], hp_name_v2, node_name, var_map, var_names_map)


def _optimizers_in(variable_names, estimator_type) -> Dict[str, str]:
    """v1 optimizer name -> a variable naming it (SGD, which has no slots: '')."""
    found = {}
    for var_name in variable_names:
        for opt_name in OPT_NAME_V1_TO_V2:
            if opt_name in var_name:
                found[opt_name] = var_name
    if not found:
        if estimator_type in ("dnn", "linear"):
            found["SGD"] = ""
        elif estimator_type == "combined":
            raise ValueError("Two `SGD` optimizers are used in DNNLinearCombined model, and "
                             "this is not handled by the checkpoint converter.")
    return found


def convert_checkpoint(estimator_type: str, source_checkpoint: str, source_graph: str,
                       target_checkpoint: str) -> None:
    """Writes `target_checkpoint`: `source_checkpoint` (v1 canned) with v2 variable names.

    Args:
        estimator_type: 'dnn', 'linear' or 'combined' (DNNLinearCombined).
        source_checkpoint: The v1 checkpoint prefix to read.
        source_graph: The model_dir's graph.pbtxt (a text GraphDef).
        target_checkpoint: The checkpoint prefix to write (its folder must exist).

    Raises:
        ValueError: A DNNLinearCombined checkpoint with no optimizer slots (two SGDs).
    """
    with tf.Graph().as_default():
        reader = tf.compat.v1.train.NewCheckpointReader(source_checkpoint)
        variable_names = sorted(reader.get_variable_to_shape_map())
        opt_names_v1 = _optimizers_in(variable_names, estimator_type)
        var_map, var_names_map = {}, {}  # v2 name -> variable; v2 name -> v1 name

        if estimator_type == "combined":
            linear_opt_v1 = None
            if len(opt_names_v1) == 1:  # One of the two optimizers is SGD.
                key = list(opt_names_v1)[0]
                if opt_names_v1[key].startswith("linear/linear_model/"):
                    linear_opt_v1 = key
                if not linear_opt_v1:
                    linear_opt_v1 = "SGD"
                opt_names_v1["SGD"] = ""
            else:
                for key in opt_names_v1:
                    if opt_names_v1[key].startswith("linear/linear_model/"):
                        linear_opt_v1 = key
            # The linear optimizer's step count; the DNN one uses global_step.
            _add_new_variable(reader.get_tensor("global_step"),
                              "training/" + OPT_NAME_V1_TO_V2[linear_opt_v1] + "/iter",
                              "global_step", var_map, var_names_map)

        for opt_name_v1 in opt_names_v1:
            _convert_variables_in_ckpt(opt_name_v1, reader, variable_names, var_map,
                                       var_names_map, estimator_type)
            _convert_hyper_params_in_graph(source_graph, opt_name_v1, var_map, var_names_map)

        logging.info("<----- Variable names converted (v1 --> v2): ----->")
        for name_v2, name_v1 in var_names_map.items():
            logging.info(f"{name_v1} --> {name_v2}")

        saver = tf.compat.v1.train.Saver(var_list=var_map)
        with session_lib.plain_session(None) as session:
            session.run(tf.compat.v1.initializers.global_variables())
            logging.info(f"Writing checkpoint_to_path {target_checkpoint}")
            saver.save(session, target_checkpoint)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m estimator_lib.legacy.checkpoint_converter",
        description="Converts a canned estimator's v1 checkpoint to v2 variable names.")
    parser.add_argument(
        "estimator_type", type=str, choices=["dnn", "linear", "combined"],
        help="The type of estimator to be converted. So far, the checkpoint converter only "
             "supports Canned Estimator. So the allowed types include linear, dnn and "
             "combined.")
    parser.add_argument("source_checkpoint", type=str,
                        help="Path to source checkpoint file to be read in.")
    parser.add_argument("source_graph", type=str,
                        help="Path to source graph file to be read in.")
    parser.add_argument("target_checkpoint", type=str,
                        help="Path to checkpoint file to be written out.")
    return parser


FLAGS = None


def main(_) -> None:
    """Converts as the command line's FLAGS say (the original's entry point)."""
    convert_checkpoint(FLAGS.estimator_type, FLAGS.source_checkpoint, FLAGS.source_graph,
                       FLAGS.target_checkpoint)


def run(argv=None) -> None:
    """Parses `argv` (default sys.argv) as the original tool did, then runs `main`."""
    global FLAGS  # pylint: disable=global-statement
    argv = sys.argv if argv is None else argv
    FLAGS, unparsed = _parser().parse_known_args(argv[1:])
    tf.compat.v1.app.run(main=main, argv=[argv[0]] + unparsed)


if __name__ == "__main__":
    run()
