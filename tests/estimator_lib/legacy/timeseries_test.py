"""canned/timeseries: the feature keys are the original's; the rest is refused by name."""

import tensorflow as tf

from estimator_lib.legacy import timeseries


class TimeseriesTest(tf.test.TestCase):

    def test_feature_keys(self):
        keys = timeseries.tree()["canned.timeseries.feature_keys"]
        self.assertEqual("times", keys["TrainEvalFeatures"].TIMES)
        self.assertEqual("values", keys["FilteringFeatures"].VALUES)
        self.assertEqual("model_state", keys["PredictionFeatures"].STATE_PREFIX)
        self.assertEqual("start_tuple", keys["State"].STATE_TUPLE)
        self.assertEqual("serving_default", keys["SavedModelLabels"].PREDICT)

    def test_the_rest_is_refused_with_the_alternative(self):
        tree = timeseries.tree()
        for module, names in timeseries.UNSUPPORTED.items():
            for name, kind in names:
                value = tree[f"canned.timeseries.{module}"][name]
                with self.subTest(name), self.assertRaisesRegex(
                        NotImplementedError, rf"timeseries\.{module}\.{name} is not supported.*"
                                             r"tf\.keras"):
                    value() if kind == "function" else value(None)


if __name__ == "__main__":
    tf.test.main()
