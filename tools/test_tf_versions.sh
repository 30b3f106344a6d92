#!/usr/bin/env bash
# Runs the quick subset (`pytest --quick`, tests/quick.txt) on every TensorFlow
# estimator_lib supports, 2.16 to 2.21, and on the nightly: each in a throw-away venv
# under /tmp, installed as a user would. For a release: its tensorflow, tf-keras and
# tensorboard first, then `pip install -e '.[test]'`, which must keep that TensorFlow
# (the script fails the release if pip replaced it). For the nightly: tf-nightly and
# tf-keras-nightly, then estimator_lib with --no-deps (setup.cfg's range stops at 2.21)
# and the rest of its requirements. Not part of CI's pass/fail (CI runs 2.21 and 2.16:
# .ci/run); docs/versions.md records each run, from the lines this script prints.
#
#   tools/test_tf_versions.sh                      # 2.16 2.17 2.18 2.19 2.20 2.21 nightly
#   tools/test_tf_versions.sh 2.16 2.18            # some of them
#   PYTHON=python3.12 tools/test_tf_versions.sh 2.19
#   REUSE=1 tools/test_tf_versions.sh 2.16         # a venv made before: keep its TensorFlow
#   EXTRA="tests/estimator_lib/trajectory_test.py" tools/test_tf_versions.sh 2.16
#
# Venvs: ${VENV_PREFIX}tf216 ... ${VENV_PREFIX}tfnightly (VENV_PREFIX default
# /tmp/estimator_lib-). PYTEST_ARGS (default "-n 2") go to pytest; EXTRA names test
# files run after the quick subset, in the same venv. One result line per release goes to
# stdout and to ${RESULTS:-/tmp/estimator_lib-tf-versions.txt}. REUSE=1 keeps an existing
# venv's TensorFlow and installs only estimator_lib (the same way) into it.
# Exit status: 0 when every release passed.
set -uo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3.11}"  # Every release 2.16-2.21 has 3.11 wheels.
prefix="${VENV_PREFIX:-/tmp/estimator_lib-}"
results="${RESULTS:-/tmp/estimator_lib-tf-versions.txt}"
read -r -a pytest_args <<< "${PYTEST_ARGS:--n 2}"
releases=("$@")
[ "${#releases[@]}" -gt 0 ] || releases=(2.16 2.17 2.18 2.19 2.20 2.21 nightly)
commit="$(git log -1 --format=%h 2> /dev/null || echo '?')"

install_tensorflow() {  # install_tensorflow RELEASE VENV: a fresh venv with it
    local release="$1" venv="$2"
    "$python" -m venv --clear "$venv" || return 1
    "$venv/bin/pip" install -q --upgrade pip || return 1
    if [ "$release" = nightly ]; then
        "$venv/bin/pip" install -q --pre tf-nightly tf-keras-nightly
    else
        "$venv/bin/pip" install -q "tensorflow==${release}.*" "tf-keras==${release}.*" \
            "tensorboard==${release}.*"
    fi
}

install_project() {  # install_project RELEASE VENV: estimator_lib over that TensorFlow
    local release="$1" venv="$2"
    if [ "$release" = nightly ]; then
        "$venv/bin/pip" install -q --no-deps -e . || return 1
        "$venv/bin/pip" install -q tensorboard "absl-py>=1.4" "numpy>=1.23" "kaggle>=1.6" \
            "matplotlib>=3.7" "datasets>=2.0" "pytest>=7.4" "pytest-timeout>=2.2" \
            "pytest-xdist>=3.0" "pdoc==16.0.0" "h5py>=3.8"
        return
    fi
    local before after
    before="$("$venv/bin/pip" show tensorflow | sed -n 's/^Version: //p')"
    "$venv/bin/pip" install -q -e '.[test]' || return 1
    after="$("$venv/bin/pip" show tensorflow | sed -n 's/^Version: //p')"
    if [ "$before" != "$after" ]; then
        echo "test_tf_versions.sh: pip install -e '.[test]' replaced TensorFlow" \
             "$before with $after" >&2
        return 1
    fi
    echo "test_tf_versions.sh: pip install -e '.[test]' kept TensorFlow $after"
}

versions() {  # versions VENV: "TF x / tf-keras y / protobuf z / numpy n / Python p"
    "$1/bin/python" - << 'PY'
import platform
from importlib import metadata

def version(*names):
    for name in names:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return "?"

print(f"TF {version('tensorflow', 'tf-nightly', 'tensorflow-cpu')} / "
      f"tf-keras {version('tf-keras', 'tf-keras-nightly')} / "
      f"protobuf {version('protobuf')} / numpy {version('numpy')} / "
      f"Python {platform.python_version()}")
PY
}

summary() {  # summary LOG: pytest's last line, e.g. "95 passed, 3 failed in 412.3s"
    grep -E "^=*.* (passed|failed|error|no tests ran)" "$1" | tail -1 | tr -d '='
}

overall=0
for release in "${releases[@]}"; do
    venv="${prefix}tf${release//./}"
    log="${venv}.log"
    started="$(date -u +%Y-%m-%d)"
    : > "$log"
    status=0
    if [ -z "${REUSE:-}" ] || [ ! -x "$venv/bin/python" ]; then
        install_tensorflow "$release" "$venv" >> "$log" 2>&1 || status=$?
    fi
    [ "$status" -ne 0 ] || install_project "$release" "$venv" >> "$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        line="$started | $release | install failed (see $log) | $commit"
        echo "$line" | tee -a "$results"
        overall=1
        continue
    fi
    installed="$(versions "$venv")"
    # Wall time and CPU time (pytest and its xdist workers): what CI's budget is sized by.
    TIMEFORMAT="%0R s wall, %0U+%0S s CPU"
    { time nice "$venv/bin/python" -m pytest --quick -q -rf -p no:cacheprovider \
        "${pytest_args[@]}" >> "$log" 2>&1; } 2> "${log%.log}.time"
    status=$?
    result="quick: $(summary "$log") [$(cat "${log%.log}.time")]"
    if [ -n "${EXTRA:-}" ]; then
        read -r -a extra <<< "$EXTRA"
        nice "$venv/bin/python" -m pytest -q -rf -p no:cacheprovider "${pytest_args[@]}" \
            "${extra[@]}" > "${log%.log}.extra.log" 2>&1 || status=1
        result="$result; EXTRA: $(summary "${log%.log}.extra.log")"
    fi
    [ "$status" -eq 0 ] || overall=1
    line="$started | $release | $installed | $commit | $result (exit $status; log $log)"
    echo "$line" | tee -a "$results"
done
exit "$overall"
