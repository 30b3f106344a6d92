"""Building one call's graph: global step, input_fn call, model_fn call, warm start,
prediction keys. Below training/ and the engine."""
