"""Writes tests/data/tf215_checkpoint_converter.json: the ORIGINAL converter's output.

Run by hand only, in the throw-away venv described in tests/data/README.md, after
make_tf215_canned_fixtures.py (it converts the v1 model_dirs that one wrote):

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_converted_checkpoints.py

For each v1 canned fixture it runs tensorflow-estimator 2.15's
`tools/checkpoint_converter.py` as its users did (`python -m ... TYPE SRC GRAPH DST`),
with `graph.pbtxt` an empty GraphDef (the fixtures keep none; the tool reads it only
for hyperparameters, and takes defaults for those it does not find), and records
every variable of the written checkpoint: name, dtype, shape, values. The test
`tests/estimator_lib/legacy/checkpoint_converter_test.py` converts the same
fixtures with estimator_lib's tool and compares. Only outputs are kept.
"""

import json
import os
import subprocess
import sys
import tempfile

import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf215_checkpoint_converter.json")
# Fixture (tests/data/tf215_canned_<name>) -> the converter's estimator_type.
FIXTURES = {
    "dnn_classifier_v1": "dnn",
    "linear_classifier_v1": "linear",
    "linear_regressor_v1": "linear",
    "dnn_linear_combined_classifier_v1": "combined",
}
TOOL = "tensorflow_estimator.python.estimator.tools.checkpoint_converter"


def convert(name: str, estimator_type: str, work: str) -> dict:
    source = tf.train.latest_checkpoint(os.path.join(HERE, f"tf215_canned_{name}"))
    graph = os.path.join(work, f"{name}.pbtxt")
    with open(graph, "w"):
        pass  # An empty text GraphDef.
    target_dir = os.path.join(work, name)
    os.makedirs(target_dir)
    target = os.path.join(target_dir, os.path.basename(source))
    subprocess.run([sys.executable, "-m", TOOL, estimator_type, source, graph, target],
                   check=True)
    reader = tf.train.load_checkpoint(target)
    variables = {}
    for var_name, shape in sorted(reader.get_variable_to_shape_map().items()):
        value = reader.get_tensor(var_name)
        variables[var_name] = dict(dtype=str(value.dtype), shape=list(shape),
                                   value=value.tolist())
    return dict(estimator_type=estimator_type,
                source=os.path.relpath(source, HERE),
                target_files=sorted(os.listdir(target_dir)),
                variables=variables)


def main():
    with tempfile.TemporaryDirectory() as work:
        data = dict(generator="tests/data/make_tf215_converted_checkpoints.py",
                    tensorflow=tf.__version__,
                    conversions={name: convert(name, kind, work)
                                 for name, kind in FIXTURES.items()})
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"{len(data['conversions'])} conversions -> {OUT}")


if __name__ == "__main__":
    main()
