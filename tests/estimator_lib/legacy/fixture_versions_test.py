"""Every tests/data/tf215_*.json fixture that says what recorded it says the original.

The generators (tests/data/make_tf215_*.py) write the installed versions they ran with,
read from TensorFlow or importlib.metadata, under one of the keys below. A fixture
recorded with another TensorFlow, tensorflow-estimator or Keras than the original's
(TF 2.15.1 + tensorflow-estimator 2.15.0 + keras 2.15.0) fails here, whatever the test
that reads it compares.
"""

import glob
import json
import os
import unittest

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data")

ORIGINAL = {"tensorflow": "2.15.1", "tensorflow_estimator": "2.15.0", "keras": "2.15.0"}

# Top-level keys a generator records versions under: a dict of versions, or one
# version (the key -> the distribution it names).
_VERSION_DICTS = ("versions", "recorded_with")
_VERSION_SCALARS = {"tensorflow": "tensorflow", "tf_version": "tensorflow",
                    "tensorflow_estimator": "tensorflow_estimator", "keras": "keras"}

# Fixtures written before their generators recorded versions (their tables start at
# the first case). A new fixture must record its versions; one regenerated with them
# leaves this list.
_WITHOUT_VERSIONS = {
    "tf215_canned_baseline_classifier_v1.json", "tf215_canned_dnn_classifier_v1.json",
    "tf215_canned_dnn_classifier_v2.json",
    "tf215_canned_dnn_linear_combined_classifier_v1.json",
    "tf215_canned_dnn_linear_combined_classifier_v2.json",
    "tf215_canned_dnn_regressor_v2.json", "tf215_canned_linear_classifier_v1.json",
    "tf215_canned_linear_classifier_v2.json", "tf215_canned_linear_regressor_v1.json",
    "tf215_canned_programs.json", "tf215_rnn.json", "tf215_variable_lists.json",
}


def versions_of(record: dict) -> dict:
    """The versions `record` says it was recorded with: distribution -> version."""
    found = {}
    for key in _VERSION_DICTS:
        for name, version in record.get(key, {}).items():
            if name in ORIGINAL:
                found[name] = version
    for key, name in _VERSION_SCALARS.items():
        if isinstance(record.get(key), str):
            found[name] = record[key]
    return found


def mismatches(versions: dict) -> dict:
    """The recorded versions that are not the original's: name -> (recorded, original)."""
    return {name: (version, ORIGINAL[name]) for name, version in versions.items()
            if version != ORIGINAL[name]}


class FixtureVersionsTest(unittest.TestCase):

    def _fixtures(self):
        paths = sorted(glob.glob(os.path.join(_DATA, "tf215_*.json")))
        self.assertGreaterEqual(len(paths), 25)
        for path in paths:
            with open(path) as f:
                yield os.path.basename(path), json.load(f)

    def test_every_recorded_version_is_the_original_s(self):
        for name, record in self._fixtures():
            with self.subTest(name):
                self.assertEqual(mismatches(versions_of(record)), {})

    def test_every_fixture_records_its_versions_but_the_listed_ones(self):
        without = {name for name, record in self._fixtures() if not versions_of(record)}
        self.assertEqual(sorted(without), sorted(_WITHOUT_VERSIONS))

    def test_the_generators_that_launch_or_export_record_all_three(self):
        # Issue #48: these two wrote "tensorflow_estimator": "2.15.0" by hand.
        for name in ("tf215_multi_worker.json", "tf215_receivers.json"):
            with open(os.path.join(_DATA, name)) as f:
                self.assertEqual(versions_of(json.load(f)), ORIGINAL, name)

    def test_another_version_is_a_mismatch(self):
        self.assertEqual(mismatches(versions_of({"versions": {"tensorflow": "2.16.1"}})),
                         {"tensorflow": ("2.16.1", "2.15.1")})
        self.assertEqual(mismatches(versions_of({"tf_version": "2.15.0"})),
                         {"tensorflow": ("2.15.0", "2.15.1")})
        self.assertEqual(mismatches(versions_of({"tensorflow_estimator": "2.14.0"})),
                         {"tensorflow_estimator": ("2.14.0", "2.15.0")})


if __name__ == "__main__":
    unittest.main()
