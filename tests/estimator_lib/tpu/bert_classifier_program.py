"""A tiny program with the shape of google-research/bert's run_classifier.py.

Written against `tf.compat.v1.estimator.tpu.*` as BERT was, run with use_tpu=False:
absl flags, TFRecords it writes itself, `file_based_input_fn_builder` reading
`params["batch_size"]`, `model_fn_builder` whose TPUEstimatorSpec has a `scaffold_fn`
calling `init_from_checkpoint` and an `eval_metrics` tuple, and BERT's
AdamWeightDecayOptimizer (a tf.compat.v1.train.Optimizer subclass). The encoder is a
mean of word embeddings instead of a transformer.

    python bert_classifier_program.py --data_dir=D --output_dir=O --init_checkpoint=C \
        --do_train --do_eval --do_predict --do_export

`write_init_checkpoint` makes the "pre-trained" checkpoint. Runs unchanged on TF 2.15
with tensorflow-estimator and, through estimator_lib's compat layer, on TF 2.16+.
"""

import collections
import json
import os
import re

from absl import app
from absl import flags
import numpy as np
import tensorflow as tf

FLAGS = flags.FLAGS

flags.DEFINE_string("data_dir", None, "Where the TFRecords are written and read.")
flags.DEFINE_string("output_dir", None, "The model_dir.")
flags.DEFINE_string("init_checkpoint", None, "The pre-trained checkpoint.")
flags.DEFINE_string("export_dir", None, "Where export_saved_model writes.")
flags.DEFINE_bool("do_train", False, "Train.")
flags.DEFINE_bool("do_eval", False, "Evaluate.")
flags.DEFINE_bool("do_predict", False, "Predict and write test_results.tsv.")
flags.DEFINE_bool("do_export", False, "Export a SavedModel.")
flags.DEFINE_bool("use_tpu", False, "Whether to use TPU or GPU/CPU.")
flags.DEFINE_integer("max_seq_length", 8, "Tokens per example.")
flags.DEFINE_integer("vocab_size", 32, "Vocabulary size.")
flags.DEFINE_integer("hidden_size", 4, "Embedding width.")
flags.DEFINE_integer("num_examples", 24, "Examples in each split.")
flags.DEFINE_integer("train_batch_size", 8, "Total batch size for training.")
flags.DEFINE_integer("eval_batch_size", 8, "Total batch size for eval.")
flags.DEFINE_integer("predict_batch_size", 8, "Total batch size for predict.")
flags.DEFINE_float("learning_rate", 5e-2, "The initial learning rate for Adam.")
flags.DEFINE_integer("num_train_steps", 6, "Training steps.")
flags.DEFINE_integer("num_warmup_steps", 2, "Warm-up steps.")
flags.DEFINE_integer("save_checkpoints_steps", 3, "How often to save a checkpoint.")
flags.DEFINE_integer("iterations_per_loop", 2, "Steps per estimator call on TPU.")
flags.DEFINE_string("master", None, "TensorFlow master URL.")
flags.DEFINE_integer("num_tpu_cores", 8, "Total TPU cores, when use_tpu.")
flags.DEFINE_integer(
    "inter_op_threads", 0,
    "Session inter-op threads (0: TensorFlow's default). BERT's create_optimizer reads "
    "global_step for the learning rate unordered with its increment; with 1 thread the "
    "order, and so the numbers, are the same from run to run.")

NUM_LABELS = 2


def write_examples(path, num_examples, seq_length, vocab_size, seed):
    """Writes a TFRecord file; the label is whether token 1 is in the sequence."""
    rng = np.random.RandomState(seed)
    with tf.io.TFRecordWriter(path) as writer:
        for _ in range(num_examples):
            input_ids = rng.randint(2, vocab_size, size=seq_length)
            label = int(rng.rand() < 0.5)
            if label:
                input_ids[rng.randint(seq_length)] = 1
            input_mask = np.ones(seq_length, np.int64)
            feature = collections.OrderedDict(
                input_ids=tf.train.Feature(int64_list=tf.train.Int64List(value=input_ids)),
                input_mask=tf.train.Feature(int64_list=tf.train.Int64List(value=input_mask)),
                label_ids=tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
                is_real_example=tf.train.Feature(int64_list=tf.train.Int64List(value=[1])))
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())


def write_init_checkpoint(path, vocab_size, hidden_size, seed=7, with_classifier=True):
    """A "pre-trained" checkpoint; returns the word embeddings it holds.

    With `with_classifier`, it also holds the classifier's weights, so that every
    variable starts from known values (runs on different TensorFlow versions then
    compute the same numbers).
    """
    rng = np.random.RandomState(seed)
    values = rng.normal(size=(vocab_size, hidden_size)).astype(np.float32)
    tf.io.gfile.makedirs(os.path.dirname(path))
    with tf.Graph().as_default():
        tf.compat.v1.get_variable("bert/embeddings/word_embeddings", initializer=values)
        tf.compat.v1.get_variable("bert/unused_by_classifier", initializer=np.zeros(3, np.float32))
        if with_classifier:
            weights = rng.normal(scale=0.1, size=(NUM_LABELS, hidden_size)).astype(np.float32)
            tf.compat.v1.get_variable("output_weights", initializer=weights)
            tf.compat.v1.get_variable("output_bias", initializer=np.zeros(NUM_LABELS, np.float32))
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, path)
    return values


def file_based_input_fn_builder(input_file, seq_length, is_training, drop_remainder):
    """Creates an `input_fn` closure to be passed to TPUEstimator."""
    name_to_features = {
        "input_ids": tf.io.FixedLenFeature([seq_length], tf.int64),
        "input_mask": tf.io.FixedLenFeature([seq_length], tf.int64),
        "label_ids": tf.io.FixedLenFeature([], tf.int64),
        "is_real_example": tf.io.FixedLenFeature([], tf.int64),
    }

    def _decode_record(record, name_to_features):
        example = tf.io.parse_single_example(record, name_to_features)
        # tf.Example only supports tf.int64, but the TPU only supports tf.int32.
        for name in list(example.keys()):
            t = example[name]
            if t.dtype == tf.int64:
                t = tf.cast(t, tf.int32)
            example[name] = t
        return example

    def input_fn(params):
        batch_size = params["batch_size"]
        d = tf.data.TFRecordDataset(input_file)
        if is_training:
            d = d.repeat()
            d = d.shuffle(buffer_size=100, seed=1)
        d = d.apply(
            tf.data.experimental.map_and_batch(
                lambda record: _decode_record(record, name_to_features),
                batch_size=batch_size, drop_remainder=drop_remainder))
        return d

    return input_fn


def create_model(input_ids, input_mask, labels, num_labels, vocab_size, hidden_size):
    """Mean-pooled embeddings, then a classification layer (BERT's variable names)."""
    with tf.compat.v1.variable_scope("bert"):
        with tf.compat.v1.variable_scope("embeddings"):
            embedding_table = tf.compat.v1.get_variable(
                "word_embeddings", [vocab_size, hidden_size],
                initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.02))
        embedded = tf.nn.embedding_lookup(embedding_table, input_ids)
        mask = tf.cast(tf.expand_dims(input_mask, -1), tf.float32)
        output_layer = tf.reduce_sum(embedded * mask, 1) / tf.reduce_sum(mask, 1)
    output_weights = tf.compat.v1.get_variable(
        "output_weights", [num_labels, hidden_size],
        initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.02))
    output_bias = tf.compat.v1.get_variable(
        "output_bias", [num_labels], initializer=tf.compat.v1.zeros_initializer())
    with tf.compat.v1.variable_scope("loss"):
        logits = tf.matmul(output_layer, output_weights, transpose_b=True)
        logits = tf.nn.bias_add(logits, output_bias)
        probabilities = tf.nn.softmax(logits, axis=-1)
        log_probs = tf.nn.log_softmax(logits, axis=-1)
        one_hot_labels = tf.one_hot(labels, depth=num_labels, dtype=tf.float32)
        per_example_loss = -tf.reduce_sum(one_hot_labels * log_probs, axis=-1)
        loss = tf.reduce_mean(per_example_loss)
        return loss, per_example_loss, logits, probabilities


def get_assignment_map_from_checkpoint(tvars, init_checkpoint):
    """Compute the union of the current variables and checkpoint variables."""
    initialized_variable_names = {}
    name_to_variable = collections.OrderedDict()
    for var in tvars:
        m = re.match("^(.*):\\d+$", var.name)
        name = m.group(1) if m else var.name
        name_to_variable[name] = var
    assignment_map = collections.OrderedDict()
    for name, _ in tf.train.list_variables(init_checkpoint):
        if name not in name_to_variable:
            continue
        assignment_map[name] = name
        initialized_variable_names[name] = 1
        initialized_variable_names[name + ":0"] = 1
    return assignment_map, initialized_variable_names


class AdamWeightDecayOptimizer(tf.compat.v1.train.Optimizer):
    """A basic Adam optimizer that includes "correct" L2 weight decay (BERT's)."""

    def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-6, exclude_from_weight_decay=None,
                 name="AdamWeightDecayOptimizer"):
        super(AdamWeightDecayOptimizer, self).__init__(False, name)
        self.learning_rate = learning_rate
        self.weight_decay_rate = weight_decay_rate
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.exclude_from_weight_decay = exclude_from_weight_decay

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = []
        for (grad, param) in grads_and_vars:
            if grad is None or param is None:
                continue
            param_name = self._get_variable_name(param.name)
            m = tf.compat.v1.get_variable(
                name=param_name + "/adam_m", shape=param.shape.as_list(), dtype=tf.float32,
                trainable=False, initializer=tf.compat.v1.zeros_initializer())
            v = tf.compat.v1.get_variable(
                name=param_name + "/adam_v", shape=param.shape.as_list(), dtype=tf.float32,
                trainable=False, initializer=tf.compat.v1.zeros_initializer())
            grad = tf.convert_to_tensor(grad)
            next_m = tf.multiply(self.beta_1, m) + tf.multiply(1.0 - self.beta_1, grad)
            next_v = (tf.multiply(self.beta_2, v)
                      + tf.multiply(1.0 - self.beta_2, tf.square(grad)))
            update = next_m / (tf.sqrt(next_v) + self.epsilon)
            if self._do_use_weight_decay(param_name):
                update += self.weight_decay_rate * param
            next_param = param - self.learning_rate * update
            assignments.extend([param.assign(next_param), m.assign(next_m), v.assign(next_v)])
        return tf.group(*assignments, name=name)

    def _do_use_weight_decay(self, param_name):
        if not self.weight_decay_rate:
            return False
        for r in self.exclude_from_weight_decay or []:
            if re.search(r, param_name) is not None:
                return False
        return True

    def _get_variable_name(self, param_name):
        m = re.match("^(.*):\\d+$", param_name)
        return m.group(1) if m is not None else param_name


def create_optimizer(loss, init_lr, num_train_steps, num_warmup_steps):
    """Creates an optimizer training op (BERT's optimization.create_optimizer)."""
    global_step = tf.compat.v1.train.get_or_create_global_step()
    learning_rate = tf.constant(value=init_lr, shape=[], dtype=tf.float32)
    learning_rate = tf.compat.v1.train.polynomial_decay(
        learning_rate, global_step, num_train_steps, end_learning_rate=0.0, power=1.0,
        cycle=False)
    if num_warmup_steps:
        global_steps_int = tf.cast(global_step, tf.int32)
        warmup_steps_int = tf.constant(num_warmup_steps, dtype=tf.int32)
        global_steps_float = tf.cast(global_steps_int, tf.float32)
        warmup_steps_float = tf.cast(warmup_steps_int, tf.float32)
        warmup_percent_done = global_steps_float / warmup_steps_float
        warmup_learning_rate = init_lr * warmup_percent_done
        is_warmup = tf.cast(global_steps_int < warmup_steps_int, tf.float32)
        learning_rate = ((1.0 - is_warmup) * learning_rate + is_warmup * warmup_learning_rate)
    optimizer = AdamWeightDecayOptimizer(
        learning_rate=learning_rate, weight_decay_rate=0.01, beta_1=0.9, beta_2=0.999,
        epsilon=1e-6, exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"])
    tvars = tf.compat.v1.trainable_variables()
    grads = tf.gradients(loss, tvars)
    (grads, _) = tf.clip_by_global_norm(grads, clip_norm=1.0)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)
    # AdamWeightDecayOptimizer does not increment the global step; BERT does it here.
    new_global_step = global_step + 1
    train_op = tf.group(train_op, [global_step.assign(new_global_step)])
    return train_op


def model_fn_builder(num_labels, init_checkpoint, learning_rate, num_train_steps,
                     num_warmup_steps, use_tpu, vocab_size, hidden_size):
    """Returns `model_fn` closure for TPUEstimator."""

    def model_fn(features, labels, mode, params):  # pylint: disable=unused-argument
        tf.compat.v1.logging.info("*** Features ***")
        for name in sorted(features.keys()):
            tf.compat.v1.logging.info("  name = %s, shape = %s", name, features[name].shape)
        input_ids = features["input_ids"]
        input_mask = features["input_mask"]
        label_ids = features["label_ids"]
        if "is_real_example" in features:
            is_real_example = tf.cast(features["is_real_example"], dtype=tf.float32)
        else:
            is_real_example = tf.ones(tf.shape(label_ids), dtype=tf.float32)
        is_training = (mode == tf.estimator.ModeKeys.TRAIN)
        del is_training
        (total_loss, per_example_loss, logits, probabilities) = create_model(
            input_ids, input_mask, label_ids, num_labels, vocab_size, hidden_size)

        tvars = tf.compat.v1.trainable_variables()
        initialized_variable_names = {}
        scaffold_fn = None
        if init_checkpoint:
            (assignment_map, initialized_variable_names
             ) = get_assignment_map_from_checkpoint(tvars, init_checkpoint)

            def tpu_scaffold():
                tf.compat.v1.train.init_from_checkpoint(init_checkpoint, assignment_map)
                return tf.compat.v1.train.Scaffold()

            scaffold_fn = tpu_scaffold

        tf.compat.v1.logging.info("**** Trainable Variables ****")
        for var in tvars:
            init_string = ", *INIT_FROM_CKPT*" if var.name in initialized_variable_names else ""
            tf.compat.v1.logging.info("  name = %s, shape = %s%s", var.name, var.shape,
                                      init_string)

        tpu = tf.compat.v1.estimator.tpu
        if mode == tf.estimator.ModeKeys.TRAIN:
            train_op = create_optimizer(total_loss, learning_rate, num_train_steps,
                                        num_warmup_steps)
            output_spec = tpu.TPUEstimatorSpec(
                mode=mode, loss=total_loss, train_op=train_op, scaffold_fn=scaffold_fn)
        elif mode == tf.estimator.ModeKeys.EVAL:

            def metric_fn(per_example_loss, label_ids, logits, is_real_example):
                predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
                accuracy = tf.compat.v1.metrics.accuracy(
                    labels=label_ids, predictions=predictions, weights=is_real_example)
                loss = tf.compat.v1.metrics.mean(values=per_example_loss,
                                                 weights=is_real_example)
                return {"eval_accuracy": accuracy, "eval_loss": loss}

            eval_metrics = (metric_fn,
                            [per_example_loss, label_ids, logits, is_real_example])
            output_spec = tpu.TPUEstimatorSpec(
                mode=mode, loss=total_loss, eval_metrics=eval_metrics, scaffold_fn=scaffold_fn)
        else:
            predictions = {"probabilities": probabilities}
            output_spec = tpu.TPUEstimatorSpec(
                mode=mode, predictions=predictions, scaffold_fn=scaffold_fn,
                export_outputs={
                    "serving_default": tf.compat.v1.estimator.export.PredictOutput(predictions)})
        return output_spec

    return model_fn


def serving_input_receiver_fn():
    """Serialized tf.Examples in, as a BERT serving export would take them."""
    serialized = tf.compat.v1.placeholder(tf.string, [None], name="input_example_tensor")
    features = tf.io.parse_example(serialized, {
        "input_ids": tf.io.FixedLenFeature([FLAGS.max_seq_length], tf.int64),
        "input_mask": tf.io.FixedLenFeature([FLAGS.max_seq_length], tf.int64),
        "label_ids": tf.io.FixedLenFeature([], tf.int64),
    })
    features = {k: tf.cast(v, tf.int32) for k, v in features.items()}
    return tf.compat.v1.estimator.export.ServingInputReceiver(
        features, {"examples": serialized})


def main(_):
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    tpu = tf.compat.v1.estimator.tpu
    tf.io.gfile.makedirs(FLAGS.output_dir)
    tf.io.gfile.makedirs(FLAGS.data_dir)
    is_per_host = tpu.InputPipelineConfig.PER_HOST_V2
    run_config = tpu.RunConfig(
        cluster=None,
        master=FLAGS.master,
        model_dir=FLAGS.output_dir,
        save_checkpoints_steps=FLAGS.save_checkpoints_steps,
        tf_random_seed=1,
        session_config=(tf.compat.v1.ConfigProto(
            allow_soft_placement=True, inter_op_parallelism_threads=FLAGS.inter_op_threads)
            if FLAGS.inter_op_threads else None),
        tpu_config=tpu.TPUConfig(
            iterations_per_loop=FLAGS.iterations_per_loop,
            num_shards=FLAGS.num_tpu_cores,
            per_host_input_for_training=is_per_host))
    model_fn = model_fn_builder(
        num_labels=NUM_LABELS, init_checkpoint=FLAGS.init_checkpoint,
        learning_rate=FLAGS.learning_rate, num_train_steps=FLAGS.num_train_steps,
        num_warmup_steps=FLAGS.num_warmup_steps, use_tpu=FLAGS.use_tpu,
        vocab_size=FLAGS.vocab_size, hidden_size=FLAGS.hidden_size)
    # If TPU is not available, this will fall back to normal Estimator on CPU or GPU.
    estimator = tpu.TPUEstimator(
        use_tpu=FLAGS.use_tpu,
        model_fn=model_fn,
        config=run_config,
        train_batch_size=FLAGS.train_batch_size,
        eval_batch_size=FLAGS.eval_batch_size,
        predict_batch_size=FLAGS.predict_batch_size)
    results = {}

    if FLAGS.do_train:
        train_file = os.path.join(FLAGS.data_dir, "train.tf_record")
        write_examples(train_file, FLAGS.num_examples, FLAGS.max_seq_length,
                       FLAGS.vocab_size, seed=1)
        tf.compat.v1.logging.info("***** Running training *****")
        train_input_fn = file_based_input_fn_builder(
            input_file=train_file, seq_length=FLAGS.max_seq_length, is_training=True,
            drop_remainder=True)
        estimator.train(input_fn=train_input_fn, max_steps=FLAGS.num_train_steps)

    if FLAGS.do_eval:
        eval_file = os.path.join(FLAGS.data_dir, "eval.tf_record")
        write_examples(eval_file, FLAGS.num_examples, FLAGS.max_seq_length,
                       FLAGS.vocab_size, seed=2)
        eval_steps = None
        eval_drop_remainder = True if FLAGS.use_tpu else False
        eval_input_fn = file_based_input_fn_builder(
            input_file=eval_file, seq_length=FLAGS.max_seq_length, is_training=False,
            drop_remainder=eval_drop_remainder)
        result = estimator.evaluate(input_fn=eval_input_fn, steps=eval_steps)
        output_eval_file = os.path.join(FLAGS.output_dir, "eval_results.txt")
        with tf.io.gfile.GFile(output_eval_file, "w") as writer:
            tf.compat.v1.logging.info("***** Eval results *****")
            for key in sorted(result.keys()):
                tf.compat.v1.logging.info("  %s = %s", key, str(result[key]))
                writer.write("%s = %s\n" % (key, str(result[key])))
        results["eval"] = {k: [type(v).__name__, str(getattr(v, "dtype", ""))]
                           for k, v in result.items()}

    if FLAGS.do_predict:
        predict_file = os.path.join(FLAGS.data_dir, "predict.tf_record")
        write_examples(predict_file, FLAGS.num_examples - 3, FLAGS.max_seq_length,
                       FLAGS.vocab_size, seed=3)
        predict_drop_remainder = True if FLAGS.use_tpu else False
        predict_input_fn = file_based_input_fn_builder(
            input_file=predict_file, seq_length=FLAGS.max_seq_length, is_training=False,
            drop_remainder=predict_drop_remainder)
        result = list(estimator.predict(input_fn=predict_input_fn))
        output_predict_file = os.path.join(FLAGS.output_dir, "test_results.tsv")
        with tf.io.gfile.GFile(output_predict_file, "w") as writer:
            for prediction in result:
                probabilities = prediction["probabilities"]
                writer.write("\t".join(str(p) for p in probabilities) + "\n")
        results["predict"] = {"count": len(result),
                              "keys": sorted(result[0].keys()),
                              "shape": list(result[0]["probabilities"].shape)}

    if FLAGS.do_export:
        export_path = estimator.export_saved_model(FLAGS.export_dir, serving_input_receiver_fn)
        if isinstance(export_path, bytes):
            export_path = export_path.decode()
        results["export_path"] = export_path

    with tf.io.gfile.GFile(os.path.join(FLAGS.output_dir, "program_results.json"), "w") as f:
        f.write(json.dumps(results, sort_keys=True))
    return results


if __name__ == "__main__":
    flags.mark_flag_as_required("data_dir")
    flags.mark_flag_as_required("output_dir")
    app.run(main)
