"""The Estimator's construction rules, as the original's: the config and model_dir it
settles on, and the public members a subclass may not override."""

import inspect
import os
import tempfile

import tensorflow as tf

from estimator_lib.core.run_config import RunConfig

logging = tf.compat.v1.logging

# Members a subclass may override (the original forbade overriding the rest).
_OVERRIDABLE = frozenset(["latest_checkpoint"])

# The Estimator's private hook points: methods the original called through `self`, which
# a subclass overrides and which are called here where the original called them
# (docs/estimator.md, "The subclassing contract"; graph/model_graph.py calls the ones
# a graph needs on its owner).
HOOK_POINTS = (
    "_assert_members_are_not_overridden",
    "_call_input_fn",
    "_call_model_fn",
    "_get_features_and_labels_from_input_fn",
    "_get_features_from_input_fn",
    "_get_iterator_from_input_fn",
    "_create_global_step",
    "_create_and_assert_global_step",
    "_validate_features_in_predict_input",
    "_extract_keys",
    "_extract_batch_length",
    "_maybe_warm_start",
    "_export_all_saved_models",
    "_add_meta_graph_for_mode",
)

# The constructor state the original kept on `self`, read at every call (an instance's
# replaced attribute is obeyed), each held in this one place.
CALL_TIME_ATTRIBUTES = ("_model_fn", "_params", "_config", "_session_config",
                        "_warm_start_settings")

# The original's instance attributes that were copies of RunConfig fields, here views
# of `_config` (`ConfigAlias`): attribute -> field.
CONFIG_ALIASES = {"_model_dir": "model_dir", "_train_distribution": "train_distribute",
                  "_eval_distribution": "eval_distribute", "_device_fn": "device_fn"}


class ConfigAlias:
    """The original's instance attribute for one field of the RunConfig (`_model_dir`,
    `_train_distribution`, ...), kept as a view of `_config`, the one authority.

    Reading it reads `self._config` now; assigning it on an instance replaces
    `self._config` by a copy with the field replaced (`RunConfig.replace`), so the next
    call obeys it, as the original obeyed its replaced attribute (docs/estimator.md,
    "Call-time reads").

    Args:
        field: The RunConfig field.
        default: Called with the config when the field is None, for the value the
            original derived (the parameter-server tasks' device function).
    """

    def __init__(self, field: str, default=None):
        self.field = field
        self._default = default

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = getattr(instance._config, self.field)  # pylint: disable=protected-access
        if value is None and self._default is not None:
            value = self._default(instance._config)  # pylint: disable=protected-access
        return value

    def __set__(self, instance, value):
        if "_config" not in vars(instance):
            # Before Estimator.__init__ (a subclass's own __init__): the original's
            # __init__ overwrote such an assignment, so it has no effect here either.
            return
        instance._config = instance._config.replace(  # pylint: disable=protected-access
            **{self.field: value})


def check_config_type(config) -> None:
    """Raises the original's ValueError unless `config` is None or a RunConfig."""
    if config is not None and not isinstance(config, RunConfig):
        raise ValueError(
            "config must be an instance of `RunConfig`, but provided "
            f"{type(config).__name__}.")


def resolve_config(config, model_dir):
    """RunConfig with model_dir settled (argument, config, or a new temporary folder).

    `model_dir=''` means no model_dir, as in the original.
    """
    check_config_type(config)
    if config is None:
        logging.info("Using default config.")
        config = RunConfig()
    if model_dir is not None and not os.fspath(model_dir):
        model_dir = None
    if model_dir is not None:
        model_dir = os.fspath(model_dir)
        if config.model_dir is not None and config.model_dir != model_dir:
            raise ValueError(
                "`model_dir` are set both in constructor and `RunConfig`, but with different "
                f"values. In constructor: '{model_dir}', in `RunConfig`: "
                f"'{config.model_dir}'.")
        config = config.replace(model_dir=model_dir)
    elif config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
        config = config.replace(model_dir=model_dir)
    return config


def assert_members_are_not_overridden(cls) -> None:
    """Raises the original's ValueError when `cls` overrides a public Estimator member."""
    # The nearest API class (Estimator, or EstimatorV1 for the v1 classes) fixes the
    # members; the original checked each subclass against its own API class too.
    base = next(klass for klass in cls.__mro__ if vars(klass).get("_ESTIMATOR_API_CLASS"))
    if cls is base:
        return
    for name in dir(base):
        if name.startswith("_") or name in _OVERRIDABLE:
            continue
        member = inspect.getattr_static(base, name)
        for klass in cls.__mro__:
            if klass is base:
                break
            if name in vars(klass) and vars(klass)[name] is not member:
                raise ValueError(
                    f"Subclasses of Estimator cannot override members of Estimator. {cls} "
                    f"does override {name}.")


def check_positive(name, value) -> None:
    """The original's ValueError for a step count that is not positive."""
    if value is not None and value <= 0:
        raise ValueError(f"Must specify {name} > 0, given: {value}")


EXPORT_SAVEDMODEL_HIDDEN = ("`Estimator.export_savedmodel` has been deprecated. Please use "
                            "`export_saved_model` instead.")


class HiddenFromApi(property):
    """A name the original's v2 classes hid: present on the class, AttributeError on
    an instance (what TensorFlow's `deprecation.hide_attribute_from_api` made)."""

    _estimator_hidden_from_api = True

    def __init__(self, message: str):
        def hidden(_):
            raise AttributeError(message)

        super().__init__(hidden)


def check_global_step(step, graph):
    """`step` (what `_create_global_step` made), checked as the original asserted."""
    if step is not None and (step is not tf.compat.v1.train.get_global_step(graph)
                             or not step.dtype.is_integer):
        raise ValueError(
            "_create_global_step must return the graph's integer global step (or None). "
            f"Received: {step!r}.")
    return step
