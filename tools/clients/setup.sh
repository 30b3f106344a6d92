#!/usr/bin/env bash
# Builds the two environments docs/clients.md compares (about 3 GB, 10-20 min):
#   /tmp/libs215: the original, tensorflow-cpu 2.15.1 + tensorflow-estimator 2.15.0 + keras 2.15.0
#   /tmp/libs221: TensorFlow 2.21 + this repository (pip install -e), activation on
#                 (`python -m estimator_lib.compat --enable`): no tensorflow-estimator
# and installs the same library versions into each (--no-deps on 2.21 where a library
# pins a TensorFlow or protobuf that 2.21 cannot have).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
libs=(tensorflow-gan==2.1.0 tensorflow-lattice==2.0.13 neural-structured-learning==1.4.0 adanet==0.9.0
      deepctr==0.9.4 tensorflow-privacy==0.9.0 dp-accounting==0.4.3 tensorflow-ranking==0.5.5
      gin-config==0.5.0 tensorflow-serving-api==2.15.1)

python3 -m venv /tmp/libs215
/tmp/libs215/bin/pip install -q tensorflow-cpu==2.15.1 tensorflow-estimator==2.15.0 \
    keras==2.15.0 "numpy<2" pytest tensorflow-probability==0.23.0 tensorflow-hub==0.15.0 \
    "scikit-learn==1.5.2" "pandas==2.2.3" mock absl-py mpmath
/tmp/libs215/bin/pip install -q --no-deps "${libs[@]}"

python3 -m venv /tmp/libs221
/tmp/libs221/bin/pip install -q "numpy<2" pytest -e "$repo"
/tmp/libs221/bin/pip install -q "numpy<2" tensorflow-probability==0.25.0 "scikit-learn==1.5.2" \
    "pandas==2.2.3" mock dm-tree attrs six mpmath
/tmp/libs221/bin/pip install -q --no-deps tensorflow-hub==0.16.1 "${libs[@]}"
# tensorflow-hub's estimator exporter (LatestModuleExporter) left it in 0.16: the hub
# suite runs 0.15.0 on both sides, from this folder on the 2.21 side only (run.sh hub).
/tmp/libs221/bin/pip install -q --no-deps --target /tmp/libs221/hub015 tensorflow-hub==0.15.0
/tmp/libs221/bin/python -m estimator_lib.compat --enable
/tmp/libs221/bin/python -m estimator_lib.compat --status
