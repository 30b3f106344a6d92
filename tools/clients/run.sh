#!/usr/bin/env bash
# Runs one library's own estimator tests in one environment (tools/clients/setup.sh):
#   tools/clients/run.sh 215|221 tfgan|lattice|nsl|adanet|deepctr|privacy|ranking|hub|gin|adanet_core [pytest args...]
# The same files, plugins and flags on both sides; no library code is changed. The
# tests run from the installed wheel (TF-GAN, TF Lattice ship theirs); adanet's wheel
# ships none, so its test files come from the library's repository at the release tag
# (ADANET_REPO: a clone of github.com/tensorflow/adanet; default: the mirror below).
# CLIENTS_EXTRA_PATH: a folder put on PYTHONPATH (another estimator_lib tree's src/, to
# try a fix on the 2.21 side without reinstalling).
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
extra_path=""
case "$lib" in
  tfgan)
    files=()
    for name in gan_estimator stargan_estimator tpu_gan_estimator latent_gan_estimator; do
      files+=("$site/tensorflow_gan/python/estimator/${name}_test.py")
    done
    plugins=(-p harness_tfgan) ;;
  lattice)
    # The first parameterization of each test (the full 44 take ~30 min a side here).
    files=("$site/tensorflow_lattice/python/estimators_test.py" -k
           "Classifier0 or Regressor0 or Estimator0 or ModelInfo0 or Violations0 or DatasetAPI0")
    plugins=(-p harness_lattice) ;;
  nsl)
    files=("$site/neural_structured_learning/estimator/adversarial_regularization_test.py"
           "$site/neural_structured_learning/estimator/graph_regularization_test.py") ;;
  adanet|adanet_core)
    # adanet_core: adanet.Estimator's own suite (adanet/core/estimator_test.py, the
    # TF1-era one: 2 of its tests gated to TF1, opened by the harness) and the
    # TPUEstimator subclass's (tpu_estimator_test.py, run on CPU).
    repo="${ADANET_REPO:-/work/.mirror/tensorflow+adanet/repo}"
    mkdir -p "$work/tests/adanet/core" "$work/tests/adanet/autoensemble"
    files=()
    if [ "$lib" = adanet ]; then
      paths="adanet/core/testing_utils.py adanet/autoensemble/estimator_test.py
             adanet/autoensemble/estimator_v2_test.py adanet/core/estimator_v2_test.py"
    else
      paths="adanet/core/testing_utils.py adanet/core/estimator_test.py
             adanet/core/tpu_estimator_test.py"
    fi
    for path in $paths; do
      git --git-dir="$repo" show "v0.9.0:$path" > "$work/tests/$path" 2> /dev/null \
        || git -C "$repo" show "v0.9.0:$path" > "$work/tests/$path"
      case "$path" in *_test.py) files+=("$work/tests/$path") ;; esac
    done
    export ADANET_TESTING_UTILS_DIR="$work/tests/adanet/core"
    plugins=(-p harness_adanet)
    import_mode=importlib ;;  # two files named estimator_test.py, in no package
  deepctr)
    # DeepCTR's estimators (deepctr.estimator) and their tests, from its repository at
    # the release tag (the wheel ships none); `-k Estimator` keeps the estimator tests.
    repo="${DEEPCTR_REPO:-/work/.mirror/shenweichen+DeepCTR/repo}"
    mkdir -p "$work/tests/models"
    files=()
    for path in tests/__init__.py tests/utils.py tests/models/__init__.py \
        $(for m in AFM AutoInt CCPM DCN DeepFEFM DeepFM FiBiNET FNN FwFM NFM PNN WDL xDeepFM; do
            echo "tests/models/${m}_test.py"; done); do
      git --git-dir="$repo" show "v0.9.4:$path" > "$work/$path" 2> /dev/null \
        || git -C "$repo" show "v0.9.4:$path" > "$work/$path"
      case "$path" in *_test.py) files+=("$work/$path") ;; esac
    done
    files+=(-k Estimator)
    plugins=(-p harness_deepctr) ;;
  privacy)
    # TF Privacy's DP estimators: v2 heads overriding _create_tpu_estimator_spec, the
    # v1 head (canned.head's private helpers), DNN and linear classifiers (the wheel
    # ships the tests).
    files=()
    for name in binary_class_head_test multi_class_head_test multi_label_head_test dnn_test \
        v1/head_test v1/dnn_test v1/linear_test; do
      files+=("$site/tensorflow_privacy/privacy/estimators/$name.py")
    done ;;
  ranking)
    # TF-Ranking's estimator, v1 head and model_fn builder, and the Keras model's
    # estimator (tfr.keras.estimator), tests from its repository at 0.5.5 (the wheel
    # ships none; RANKING_REPO: a clone of github.com/tensorflow/ranking).
    repo="${RANKING_REPO:-/work/.mirror/tensorflow+ranking/repo}"
    mkdir -p "$work/tests/keras"
    files=()
    for path in estimator_test.py head_test.py model_test.py keras/estimator_test.py; do
      git --git-dir="$repo" show "5b1d1338c1cb76507466d062e2d48bae57b17ac4:tensorflow_ranking/python/$path" \
        > "$work/tests/$path"
      files+=("$work/tests/$path")
    done
    plugins=(-p harness_ranking)
    import_mode=importlib ;;  # two files named estimator_test.py
  hub)
    # tensorflow-hub 0.15.0's LatestModuleExporter (an Exporter subclass); 0.16 removed
    # it, so the 2.21 side puts 0.15.0 first on the path (setup.sh), the test file from
    # the repository at v0.15.0 (HUB_REPO: a clone of github.com/tensorflow/hub).
    repo="${HUB_REPO:-/work/.mirror/tensorflow+hub/repo}"
    mkdir -p "$work/tests"
    git --git-dir="$repo" show "v0.15.0:tensorflow_hub/estimator_test.py" > "$work/tests/estimator_test.py"
    files=("$work/tests/estimator_test.py")
    [ "$side" = 221 ] && extra_path="$venv/hub015" ;;
  gin)
    # gin-config 0.5.0's GinConfigSaverHook (a tf.estimator.SessionRunHook), its test
    # file from the repository at the 0.5.0 release commit (GIN_REPO: a clone of
    # github.com/google/gin-config; the wheel ships no tests).
    repo="${GIN_REPO:-/work/.mirror/google+gin-config/repo}"
    mkdir -p "$work/tests"
    git --git-dir="$repo" show "a5d050f:tests/tf/utils_test.py" > "$work/tests/utils_test.py"
    files=("$work/tests/utils_test.py") ;;
  *) echo "usage: $0 215|221 tfgan|lattice|nsl|adanet|deepctr|privacy|ranking|hub|gin|adanet_core [pytest args...]" >&2; exit 2 ;;
esac
cd "$work"
PYTHONPATH="$here/harness${CLIENTS_EXTRA_PATH:+:$CLIENTS_EXTRA_PATH}${extra_path:+:$extra_path}" TF_CPP_MIN_LOG_LEVEL=2 nice "$python" -m pytest \
    -p no:cacheprovider --import-mode=$import_mode -q -rfE --durations=0 \
    "${plugins[@]}" "${files[@]}" "$@"
