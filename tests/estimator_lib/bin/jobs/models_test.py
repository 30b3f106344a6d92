"""The binaries' models: the seed CNN and the VGG16 transfer model."""

import os

import numpy as np
import tensorflow as tf
import tf_keras

from estimator_lib.bin.jobs import models


class ModelsTest(tf.test.TestCase):

    def test_cnn_is_the_seeds(self):
        model = models.make_cnn()
        self.assertEqual(model.input_names, [models.INPUT_NAME])
        self.assertEqual([layer.__class__.__name__ for layer in model.layers[1:]],
                         ["Conv2D", "MaxPooling2D", "Conv2D", "MaxPooling2D", "Conv2D",
                          "Flatten", "Dense", "Dense"])
        self.assertIsInstance(model.optimizer.optimizer, tf.compat.v1.train.AdamOptimizer)

    def test_cnn_loads_a_weights_file(self):
        path = os.path.join(self.get_temp_dir(), "cnn.weights.h5")
        first = models.make_cnn()
        first.save_weights(path)
        second = models.make_cnn(weights=path)
        for a, b in zip(first.get_weights(), second.get_weights()):
            self.assertAllEqual(a, b)

    def test_vgg16_keeps_only_block5_and_the_head_trainable(self):
        model = models.make_vgg16(input_shape=(32, 32, 3), weights=None)
        trainable = sorted({w.name.split("/")[0] for w in model.trainable_weights})
        self.assertEqual(trainable, ["block5_conv1", "block5_conv2", "block5_conv3", "dense"])
        self.assertEqual(model.output_shape, (None, 4))

    def test_mixed_float16_uses_a_keras_optimizer_and_a_float32_softmax(self):
        tf_keras.mixed_precision.set_global_policy("mixed_float16")
        try:
            model = models.make_cnn(dtype="mixed_float16")
        finally:
            tf_keras.mixed_precision.set_global_policy("float32")
        self.assertIsInstance(model.optimizer,
                              tf_keras.mixed_precision.LossScaleOptimizer)
        self.assertEqual(model.layers[-1].dtype, "float32")

    def test_bad_weights_files_are_one_line(self):
        path = os.path.join(self.get_temp_dir(), "bad.h5")
        with open(path, "wb") as f:
            f.write(np.zeros(16, np.uint8).tobytes())
        with self.assertRaisesRegex(models.WeightsError, "^Could not load VGG16 base weights"):
            models.make_vgg16(input_shape=(32, 32, 3), weights=path)
        with self.assertRaisesRegex(models.WeightsError, "^Could not load the cnn model"):
            models.make_cnn(weights=path)


if __name__ == "__main__":
    tf.test.main()
