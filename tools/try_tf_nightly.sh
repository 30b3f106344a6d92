#!/usr/bin/env bash
# Tries estimator_lib on TensorFlow's next release: a fresh venv with tf-nightly and
# tf-keras-nightly, estimator_lib installed over them with --no-deps (so pip does not
# pull a second, released TensorFlow over the nightly), then the quick test subset
# (`pytest --quick`, tests/quick.txt). Not part of CI's pass/fail: a nightly may break
# for reasons of its own. docs/binaries.md ("Versions") records each run.
#
#   tools/try_tf_nightly.sh [VENV_DIR]      # default /tmp/estimator_lib-tf-nightly
#   PYTHON=python3.13 tools/try_tf_nightly.sh
#
# Exit status: pytest's (0: the subset passed on the nightly).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-/tmp/estimator_lib-tf-nightly}"
python="${PYTHON:-python3}"

"$python" -m venv --clear "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q --pre tf-nightly tf-keras-nightly
# The rest of install_requires and the test extras, without TensorFlow or tf-keras.
"$venv/bin/pip" install -q tensorboard "absl-py>=1.4" "numpy>=1.23" "kaggle>=1.6" \
    "matplotlib>=3.7" "pytest>=7.4" "pytest-timeout>=2.2" "pytest-xdist>=3.0" \
    "h5py>=3.8"
"$venv/bin/pip" install -q --no-deps -e .

"$venv/bin/python" - <<'PY'
import platform
from importlib import metadata
for name in ("tf-nightly", "tf-keras-nightly", "tensorboard", "numpy"):
    print(f"{name} {metadata.version(name)}")
print(f"Python {platform.python_version()}")
PY
git log -1 --format='estimator_lib commit %h (%cs)' 2>/dev/null || true
status=0
"$venv/bin/python" -m pytest --quick -q -rs -p no:cacheprovider || status=$?
echo "tools/try_tf_nightly.sh: pytest --quick exited ${status} on $(date -u +%Y-%m-%d)"
exit "$status"
