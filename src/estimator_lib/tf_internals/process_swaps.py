"""Process-wide changes shared by threads: one lock and one reference count each.

A function of a module or class swapped, or a warnings filter added, is seen by every
thread of the process. Saving the old value on entry and putting it back on exit (as
`warnings.catch_warnings` and a plain swap do) breaks when two threads overlap: the
second saves the first's change as "the original" and puts it back last, so the
change stays for the rest of the process. Here the first thread in makes the change,
the last one out undoes it, under a lock; the replacement passes straight through in
every thread not inside (each patch checks its own thread-local state), so a thread
that is not an Estimator call sees TensorFlow as it is.

docs/architecture.md lists each change made through this module and when it is undone.
"""

import contextlib
import threading
import warnings
from typing import Callable, Dict, List, Tuple


class SharedSwap:
    """`getattr(owner(), name)` replaced by `make(original)` while any thread is inside.

    `owner` is called on first entry (modules load late). If, at the last exit, someone
    else has replaced our replacement, theirs stays (putting ours' original back would
    undo their change); ours is a pass-through outside a call, so nothing is lost.

    Args:
        owner: Returns the object whose attribute is swapped.
        name: The attribute's name.
        make: Builds the replacement from the original attribute.
    """

    def __init__(self, owner: Callable[[], object], name: str,
                 make: Callable[[Callable], Callable]):
        self._owner, self._name, self._make = owner, name, make
        self._lock = threading.Lock()
        self._count = 0
        self._original = self._installed = None

    @contextlib.contextmanager
    def __call__(self):
        with self._lock:
            if self._count == 0:
                owner = self._owner()
                self._original = getattr(owner, self._name)
                self._installed = self._make(self._original)
                setattr(owner, self._name, self._installed)
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1
                if self._count == 0:
                    owner = self._owner()
                    if getattr(owner, self._name) is self._installed:
                        setattr(owner, self._name, self._original)
                    self._original = self._installed = None


_filters_lock = threading.Lock()
_filters: Dict[Tuple[str, type], List] = {}  # (message, category) -> [count, filter]


@contextlib.contextmanager
def ignoring_warnings(message: str = "", category: type = Warning):
    """Within it, warnings of `category` whose message starts with `message` are
    ignored; the filter is added by the first thread in and removed (that entry only,
    wherever it has moved in `warnings.filters`) by the last one out."""
    key = (message, category)
    with _filters_lock:
        entry = _filters.get(key)
        if entry is None:
            warnings.filterwarnings("ignore", message=message, category=category)
            entry = _filters[key] = [0, warnings.filters[0]]
        entry[0] += 1
    try:
        yield
    finally:
        with _filters_lock:
            entry[0] -= 1
            if entry[0] == 0:
                del _filters[key]
                for index, item in enumerate(warnings.filters):
                    if item is entry[1]:
                        # An ignore filter gone changes no "already warned" record.
                        del warnings.filters[index]
                        break
