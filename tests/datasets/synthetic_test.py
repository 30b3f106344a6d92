"""Tests for datasets.synthetic: shapes, determinism, a learnable signal."""

import numpy as np
import tensorflow as tf

from estimator_lib.datasets import synthetic


class SyntheticTest(tf.test.TestCase):

    def test_shapes_and_types(self):
        images, labels = synthetic.load_arrays(30)
        self.assertEqual(images.shape, (30, 28, 28))
        self.assertEqual(images.dtype, np.uint8)
        self.assertEqual(labels.shape, (30,))
        self.assertLess(labels.max(), 10)

    def test_same_seed_same_data_other_seed_or_split_differs(self):
        a = synthetic.load_arrays(50, seed=3)
        b = synthetic.load_arrays(50, seed=3)
        c = synthetic.load_arrays(50, seed=4)
        d = synthetic.load_arrays(50, seed=3, split="test")
        self.assertAllEqual(a[0], b[0])
        self.assertAllEqual(a[1], b[1])
        self.assertNotAllEqual(a[0], c[0])
        self.assertNotAllEqual(a[0], d[0])

    def test_signal_is_learnable(self):
        # Nearest-template classification (what a linear model can learn)
        # is far above chance, and not trivially perfect on single pixels.
        images, labels = synthetic.load_arrays(2000, seed=1)
        flat = images.reshape(len(images), -1) / 255.0
        templates = synthetic.templates().reshape(10, -1)
        centered = flat - flat.mean(axis=1, keepdims=True)
        scores = centered @ (templates - templates.mean(axis=1,
                                                        keepdims=True)).T
        accuracy = np.mean(scores.argmax(axis=1) == labels)
        self.assertGreater(accuracy, 0.9)
        self.assertGreater(np.bincount(labels, minlength=10).min(), 150)

    def test_rejects_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, r"num_examples=0"):
            synthetic.dataset(0)
        with self.assertRaisesRegex(ValueError, r"split='val'"):
            synthetic.dataset(5, split="val")


if __name__ == "__main__":
    tf.test.main()
