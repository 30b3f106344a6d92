"""The model_fn a canned estimator class hands to `Estimator`, its arguments bound."""

from typing import Callable


def bind_model_fn(model_fn: Callable, **model_args) -> Callable:
    """Returns `_model_fn(features, labels, mode, config)` calling `model_fn`.

    The result has the exact signature Estimator inspects (it passes `config`
    and no `params`); `model_args` (the head, the checked constructor arguments)
    go to `model_fn` as keywords on every call.
    """

    def _model_fn(features, labels, mode, config):
        return model_fn(features=features, labels=labels, mode=mode, config=config,
                        **model_args)

    return _model_fn
