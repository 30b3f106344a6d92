"""Session runs that repeat the same fetches skip rebuilding them each time.

A training loop runs one fetch structure (`{'caller': [train_op, loss], hook:
...}`) thousands of times. `tf.compat.v1.Session.run` re-interprets that
structure on every call (`_FetchHandler`: which tensors, which ops, how to pack
the results), about 0.07 ms, some 7% of a canned estimator's 1 ms step. A
session's `make_callable` interprets it once. `fast_repeated_runs(session)` makes
`session.run` keep one callable per fetch structure it has seen and run through
it whenever a run feeds nothing; the callable takes the run's `options` and
fills its `run_metadata`, so what a run returns and what hooks observe is what
`Session.run` gives. A run that feeds tensors, a graph still being built or a
closed session take `Session.run` itself. The callable runs inside the
session's own error translation (`_do_call`, what `Session.run` uses), so a
failing step raises what `Session.run` raises: the failing op attached, its
message interpolated with where the op was created.
"""

import collections
import threading

# Fetch structures a session keeps callables for; beyond it, the oldest is dropped.
_MAX_CALLABLES = 32


def _structure_key(fetches, leaves):
    """A hashable key equal for two fetch structures that run the same way; appends
    the structure's objects that the key holds by identity to `leaves`.

    Containers by type and keys (dict keys by identity unless strings: hooks key
    their fetches by the hook object), leaves by identity (tensors, ops), names by value.
    """
    if isinstance(fetches, dict):
        items = []
        for k, v in fetches.items():
            if not isinstance(k, str):
                leaves.append(k)
                k = id(k)
            items.append((k, _structure_key(v, leaves)))
        return (type(fetches), tuple(items))
    if isinstance(fetches, (list, tuple)):
        return (type(fetches), tuple(_structure_key(v, leaves) for v in fetches))
    if isinstance(fetches, str):
        return fetches
    leaves.append(fetches)
    return id(fetches)


def fast_repeated_runs(session):
    """Makes `session.run` reuse one callable per fetch structure (module docstring)."""
    plain_run = session.run
    callables = collections.OrderedDict()
    lock = threading.Lock()

    def run(fetches, feed_dict=None, options=None, run_metadata=None):
        if feed_dict or session._closed or not session.graph.finalized:  # pylint: disable=protected-access
            return plain_run(fetches, feed_dict=feed_dict, options=options,
                             run_metadata=run_metadata)
        leaves = []
        key = _structure_key(fetches, leaves)
        with lock:  # hooks and user threads may run the session concurrently
            entry = callables.get(key)
            if entry is not None:
                callables.move_to_end(key)
        if entry is None:
            # The entry keeps the key's objects alive, so that their ids stay theirs.
            entry = (session.make_callable(fetches, accept_options=True), leaves)
            with lock:
                callables[key] = entry
                if len(callables) > _MAX_CALLABLES:
                    callables.popitem(last=False)
        return session._do_call(  # pylint: disable=protected-access
            lambda: entry[0](options=options, run_metadata=run_metadata))

    session.run = run
    return session

