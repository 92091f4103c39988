"""Pausing the cyclic garbage collector around one graph query or capture."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for one graph query or capture.

    A query allocates hundreds of thousands of small acyclic objects (freed by reference
    counting) next to a graph of millions; each full collection would walk all of them.
    Measured: building a 100k-edge graph 0.40-0.50 s -> 0.30 s; suggesting tests 0.23 ->
    0.16 s. Cyclic garbage made meanwhile is collected once the collector is back on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
