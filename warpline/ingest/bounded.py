"""Reading one commit within bounds: a time limit, and a stop signal honoured mid-commit.

A commit's walk (diff, parses, lineage pairing) is linear in its size, but a size is not a
time: a commit can still take longer than anyone waits (a vendoring commit of 100,000
files on a busy machine, or a cost we have not met yet). ``bounded`` interrupts the walk
with ``CommitTimeout`` once ``seconds`` have passed (a real-time interval timer), and
lets a stop request's signal interrupt it too (``StopNow``). The walk writes nothing and
shares nothing but the parse cache, which the caller drops after an interruption.

An interval timer already armed (a test runner's timeout) is put back, with its time
left, when the block ends. Signals reach only the main thread: elsewhere (a thread of a
host application) the block runs unbounded, and a stop is honoured between commits as
before. A C call in progress (one libgit2 diff, one ``ast.parse``) finishes before the
interruption lands.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from warpline.ingest.stopping import StopRequest

__all__ = ["CommitTimeout", "bounded", "can_bound", "timeout_reason"]


class CommitTimeout(BaseException):
    """The walk of one commit ran past its bound. A ``BaseException``: the walker's own
    handlers (a parse error's) must not take it for an ordinary failure."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def timeout_reason(seconds: float) -> str:
    """The failure recorded for a commit that ran past its bound."""
    return (f"CommitTimeout: reading this commit took longer than {seconds:g} s "
            "(WARPLINE_COMMIT_TIMEOUT_S); it is skipped. Raise the bound and run "
            "`warpline backfill --retry-failed` to read it again.")


_TICK_S = 0.05  # after the bound, how often the timeout is raised again until it lands


def can_bound() -> bool:
    """True where ``bounded`` can interrupt (the main thread, with ``setitimer``)."""
    return (threading.current_thread() is threading.main_thread()
            and hasattr(signal, "setitimer"))


@contextmanager
def bounded(seconds: float | None, stop: StopRequest | None = None) -> Iterator[None]:
    """Run the block for at most ``seconds`` (None: unbounded), interruptible by ``stop``'s
    signal; raises ``CommitTimeout`` or ``StopNow`` (``warpline.ingest.stopping``)."""
    if not can_bound():
        yield
        return
    armed = [True]
    fired = [False]

    def expire(signum: int, frame: FrameType | None) -> None:
        # Raised again on every tick until the block is left: an exception raised while
        # Python runs a destructor or a callback is printed and dropped, not propagated.
        if armed[0]:
            fired[0] = True
            raise CommitTimeout(seconds or 0.0)

    previous = None
    earlier = (0.0, 0.0)
    started = time.monotonic()
    if seconds is not None:
        previous = signal.signal(signal.SIGALRM, expire)
        earlier = signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), _TICK_S)
    if stop is not None:
        stop.interruptible = True
    try:
        yield
        if fired[0]:  # past the bound, though every raise was dropped: still a timeout
            raise CommitTimeout(seconds or 0.0)
    finally:
        armed[0] = False
        if stop is not None:
            stop.interruptible = False
        if previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if earlier[0] > 0:  # someone else's alarm (a test runner's timeout): re-armed
                left = max(earlier[0] - (time.monotonic() - started), 0.001)
                signal.setitimer(signal.ITIMER_REAL, left, earlier[1])
