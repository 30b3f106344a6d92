"""FakeSummaryWriter: installed, SummarySaverHook's summaries land in it; uninstalled, not."""

import tensorflow as tf
from tensorflow.python.summary.writer import writer
from tensorflow.python.summary.writer import writer_cache

from estimator_lib.legacy.fake_summary_writer import FakeSummaryWriter


class FakeSummaryWriterTest(tf.test.TestCase):

    def tearDown(self):
        if FakeSummaryWriter._replaced_summary_writer:
            FakeSummaryWriter.uninstall()
        super().tearDown()

    def test_install_and_uninstall(self):
        original = writer.FileWriter
        FakeSummaryWriter.install()
        self.assertIs(FakeSummaryWriter, writer.FileWriter)
        self.assertIs(FakeSummaryWriter, writer_cache.FileWriter)
        with self.assertRaisesRegex(ValueError, "already installed"):
            FakeSummaryWriter.install()
        FakeSummaryWriter.uninstall()
        self.assertIs(original, writer.FileWriter)
        self.assertIs(original, writer_cache.FileWriter)
        with self.assertRaisesRegex(ValueError, "not installed"):
            FakeSummaryWriter.uninstall()

    def test_summary_saver_hook_writes_into_it(self):
        logdir = self.get_temp_dir()
        FakeSummaryWriter.install()
        writer_cache.FileWriterCache.clear()
        with tf.Graph().as_default():
            step = tf.compat.v1.train.get_or_create_global_step()
            tf.compat.v1.summary.scalar("value", tf.constant(2.0))
            train_op = tf.compat.v1.assign_add(step, 1)
            hook = tf.compat.v1.train.SummarySaverHook(
                save_steps=1, output_dir=logdir, summary_op=tf.compat.v1.summary.merge_all())
            with tf.compat.v1.train.MonitoredSession(hooks=[hook]) as session:
                session.run(train_op)
                session.run(train_op)
        fake = writer_cache.FileWriterCache.get(logdir)
        self.assertIsInstance(fake, FakeSummaryWriter)
        fake.assert_summaries(self, expected_logdir=logdir,
                              expected_summaries={1: {"value": 2.0}, 2: {"value": 2.0}})
        writer_cache.FileWriterCache.clear()

    def test_add_methods_check_steps(self):
        fake = FakeSummaryWriter("/logs")
        with self.assertRaisesRegex(ValueError, "Invalid global_step -1"):
            fake.add_graph(tf.Graph(), global_step=-1)
        with self.assertRaisesRegex(ValueError, "Unexpected graph_def"):
            fake.add_graph(tf.Graph(), graph_def=tf.compat.v1.GraphDef())
        summary = tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="t",
                                                                          simple_value=1.0)])
        fake.add_summary(summary.SerializeToString(), 3)
        self.assertEqual({3: [summary]}, fake.summaries)
        fake.add_session_log(tf.compat.v1.SessionLog(), 5)
        fake.assert_summaries(self, expected_session_logs=[tf.compat.v1.SessionLog()])


if __name__ == "__main__":
    tf.test.main()
