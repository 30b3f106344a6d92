"""The original's gc filters: the results TF 2.15's gc returned for the same paths."""

import os
import re

import tensorflow as tf

from estimator_lib.legacy import export_gc as gc

P = gc.Path


def _versions(paths):
    return [p.export_version for p in paths]


class FiltersTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.paths = [P(f"/e/{i}", i) for i in range(10)]

    def test_largest_export_versions_ignores_unversioned(self):
        keep = gc._largest_export_versions(3)
        self.assertEqual([7, 8, 9], _versions(keep(self.paths + [P("/e/x", None)])))

    def test_one_of_every_n(self):
        # Intervals [0, 3], (3, 6], (6, 9]: the largest of each.
        self.assertEqual([3, 6, 9], _versions(gc._one_of_every_n_export_versions(3)(
            self.paths + [P("/e/x", None)])))

    def test_mod_union_and_negation(self):
        self.assertEqual([0, 5], _versions(gc._mod_export_version(5)(self.paths)))
        both = gc._union(gc._largest_export_versions(2), gc._mod_export_version(4))
        self.assertEqual([0, 4, 8, 9], _versions(both(self.paths)))
        self.assertEqual([1, 2, 3, 5, 6, 7], _versions(gc._negation(both)(self.paths)))

    def test_get_paths_parses_a_folder(self):
        base = self.get_temp_dir()
        for name in ("3", "12", "not_a_version"):
            os.mkdir(os.path.join(base, name))
        pattern = re.compile("^" + re.escape(base) + r"/(\d+)$")

        def parser(path):
            match = pattern.match(path.path)
            return path._replace(export_version=int(match.group(1))) if match else None

        self.assertEqual([P(os.path.join(base, "12"), 12), P(os.path.join(base, "3"), 3)],
                         gc._get_paths(base, parser))

    def test_get_paths_drops_an_object_store_separator(self):
        # gs:// listings end sub-folders with "/"; listed through gfile.ListDirectory.
        with tf.compat.v1.test.mock.patch.object(gc.gfile, "ListDirectory",
                                                 return_value=["0/", "1/"]):
            paths = gc._get_paths("gs://bucket/foo", lambda p: p._replace(export_version=1))
        self.assertEqual(["gs://bucket/foo/0", "gs://bucket/foo/1"], [p.path for p in paths])


if __name__ == "__main__":
    tf.test.main()
