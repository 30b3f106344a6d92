#!/usr/bin/env bash
# Runs one library's own estimator tests in one environment (tools/clients/setup.sh):
#   tools/clients/run.sh 215|221 tfgan|lattice|nsl|adanet [pytest args...]
# The same files, plugins and flags on both sides; no library code is changed. The
# tests run from the installed wheel (TF-GAN, TF Lattice ship theirs); adanet's wheel
# ships none, so its test files come from the library's repository at the release tag
# (ADANET_REPO: a clone of github.com/tensorflow/adanet; default: the mirror below).
set -euo pipefail
side="$1"; lib="$2"; shift 2
venv="${CLIENTS_VENV_PREFIX:-/tmp/libs}$side"
python="$venv/bin/python"
site="$("$python" -c "import sysconfig; print(sysconfig.get_path('purelib'))")"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
plugins=()
import_mode=prepend
case "$lib" in
  tfgan)
    files=()
    for name in gan_estimator stargan_estimator tpu_gan_estimator latent_gan_estimator; do
      files+=("$site/tensorflow_gan/python/estimator/${name}_test.py")
    done
    plugins=(-p harness_tfgan) ;;
  lattice)
    files=("$site/tensorflow_lattice/python/estimators_test.py")
    plugins=(-p harness_lattice) ;;
  nsl)
    files=("$site/neural_structured_learning/estimator/adversarial_regularization_test.py"
           "$site/neural_structured_learning/estimator/graph_regularization_test.py") ;;
  adanet)
    repo="${ADANET_REPO:-/work/.mirror/tensorflow+adanet/repo}"
    mkdir -p "$work/adanet/core" "$work/adanet/autoensemble" "$work/adanet/examples"
    files=()
    for path in adanet/core/testing_utils.py adanet/autoensemble/estimator_test.py \
        adanet/autoensemble/estimator_v2_test.py adanet/core/estimator_v2_test.py \
        adanet/examples/simple_dnn_test.py; do
      git --git-dir="$repo" show "v0.9.0:$path" > "$work/$path" 2> /dev/null \
        || git -C "$repo" show "v0.9.0:$path" > "$work/$path"
      case "$path" in *_test.py) files+=("$work/$path") ;; esac
    done
    export ADANET_TESTING_UTILS_DIR="$work/adanet/core"
    plugins=(-p harness_adanet)
    import_mode=importlib ;;  # two files named estimator_test.py, in no package
  *) echo "usage: $0 215|221 tfgan|lattice|nsl|adanet [pytest args...]" >&2; exit 2 ;;
esac
cd "$work"
PYTHONPATH="$here/harness" TF_CPP_MIN_LOG_LEVEL=2 nice "$python" -m pytest \
    -p no:cacheprovider --import-mode=$import_mode -q -rfE --durations=0 \
    "${plugins[@]}" "${files[@]}" "$@"
