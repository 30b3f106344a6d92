"""SavedModelEstimator over SavedModels this library's Estimator exported."""

import os

import tensorflow as tf

import estimator_lib as el
from estimator_lib.canned.saved_model_estimator import SavedModelEstimator
from estimator_lib.export.receivers import build_supervised_input_receiver_fn_from_input_fn


def _input_fn():
    return tf.data.Dataset.from_tensors(
        ({"x": tf.constant([[1.], [-2.]])}, tf.constant([[4.], [-3.]]))).repeat()


def _features_input_fn():
    return tf.data.Dataset.from_tensors({"x": tf.constant([[5.], [6.]])})


def _model_fn(features, labels, mode):
    """y = w * x; w starts at 2 and moves by +1 per TRAIN step (SGD on a fixed loss)."""
    w = tf.compat.v1.get_variable("w", initializer=2.0)
    predictions = w * features["x"]
    loss = tf.constant(0.0)
    train_op = None
    if labels is not None:
        loss = tf.reduce_mean(tf.square(predictions - labels))
    if mode == el.ModeKeys.TRAIN:
        train_op = tf.group(tf.compat.v1.assign_add(w, 1.0),
                            tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1))
    return el.EstimatorSpec(
        mode, predictions={"y": predictions}, loss=loss, train_op=train_op,
        eval_metric_ops={"mae": tf.compat.v1.metrics.mean_absolute_error(labels, predictions)}
        if labels is not None else None)


class SavedModelEstimatorTest(tf.test.TestCase):

    def _export(self, modes=(el.ModeKeys.TRAIN, el.ModeKeys.EVAL, el.ModeKeys.PREDICT)):
        est = el.Estimator(_model_fn, os.path.join(self.get_temp_dir(), "source"))
        est.train(_input_fn, steps=3)  # w = 5, global step 3
        receivers = {el.ModeKeys.PREDICT: el.export.build_raw_serving_input_receiver_fn(
            {"x": tf.constant([[5.], [6.]])})}
        for mode in (el.ModeKeys.TRAIN, el.ModeKeys.EVAL):
            receivers[mode] = build_supervised_input_receiver_fn_from_input_fn(_input_fn)
        return est.experimental_export_all_saved_models(
            os.path.join(self.get_temp_dir(), "export"),
            {mode: receivers[mode] for mode in modes})

    def _estimator(self, export_dir, name="sme"):
        return SavedModelEstimator(export_dir, os.path.join(self.get_temp_dir(), name))

    def test_evaluates_predicts_and_trains_from_the_saved_model(self):
        sme = self._estimator(self._export())
        # labels 4, -3 for x 1, -2: predictions 5, -10; squared errors 1, 49; abs 1, 7.
        self.assertEqual({"loss": 25.0, "metrics/mae": 4.0, "global_step": 3},
                         sme.evaluate(_input_fn, steps=1))
        self.assertEqual([[25.0], [30.0]],
                         [list(p["y"]) for p in sme.predict(_features_input_fn)])
        sme.train(_input_fn, steps=2)
        self.assertEqual(5, sme.get_variable_value("global_step"))
        self.assertEqual(7.0, sme.get_variable_value("w"))
        # Now from model_dir's checkpoint: w = 7.
        self.assertEqual([[35.0], [42.0]],
                         [list(p["y"]) for p in sme.predict(_features_input_fn)])

    def test_latest_checkpoint_is_the_saved_models_until_training(self):
        export_dir = self._export()
        sme = self._estimator(export_dir)
        self.assertEqual(os.path.join(os.fsdecode(export_dir), "variables", "variables"),
                         sme.latest_checkpoint())
        sme.train(_input_fn, steps=1)
        self.assertTrue(sme.latest_checkpoint().endswith("model.ckpt-4"))

    def test_missing_mode_raises_when_called(self):
        sme = self._estimator(self._export(modes=(el.ModeKeys.PREDICT,)))
        with self.assertRaisesRegex(RuntimeError, "train mode is not available"):
            sme.train(_input_fn, steps=1)
        with self.assertRaisesRegex(RuntimeError, "eval mode is not available"):
            sme.evaluate(_input_fn, steps=1)
        self.assertLen(list(sme.predict(_features_input_fn)), 2)

    def test_inputs_must_match_the_signature(self):
        sme = self._estimator(self._export())

        def wrong_dtype():
            return tf.data.Dataset.from_tensors(
                ({"x": tf.constant([[1]])}, tf.constant([[1.]])))

        with self.assertRaisesRegex(ValueError, "Expected dtype: <dtype: 'float32'>"):
            sme.evaluate(wrong_dtype, steps=1)

        def missing_key():
            return tf.data.Dataset.from_tensors(({"z": tf.constant([[1.]])},
                                                 tf.constant([[1.]])))

        with self.assertRaisesRegex(ValueError, 'Key "x" not found in features or labels'):
            sme.evaluate(missing_key, steps=1)

    def test_input_fn_must_not_make_a_global_step(self):
        sme = self._estimator(self._export())

        def input_fn():
            tf.compat.v1.train.get_or_create_global_step()
            return _input_fn()

        with self.assertRaisesRegex(RuntimeError, "Graph must not contain a global step"):
            sme.train(input_fn, steps=1)

    def test_re_exports_what_it_trained(self):
        sme = self._estimator(self._export())
        sme.train(_input_fn, steps=1)  # w = 6
        again = sme.export_saved_model(
            os.path.join(self.get_temp_dir(), "again"),
            el.export.build_raw_serving_input_receiver_fn({"x": tf.constant([[5.], [6.]])}))
        second = self._estimator(again, "second")
        self.assertEqual([[30.0], [36.0]],
                         [list(p["y"]) for p in second.predict(_features_input_fn)])

    def test_not_a_saved_model_directory(self):
        with self.assertRaises(IOError):
            SavedModelEstimator(self.get_temp_dir())


if __name__ == "__main__":
    tf.test.main()
