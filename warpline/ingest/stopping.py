"""Stopping a long ingest cleanly on SIGTERM / SIGINT, with the progress kept.

A CI runner's timeout sends SIGTERM; a person presses Ctrl-C. Either way the backfill
should stop between two commits: every commit already written is committed (a worker
backfill first writes the commits its open batch holds), the one in flight is rolled back,
the workers are terminated (and would die with the parent anyway,
``pipeline.die_with_parent``), and the next run resumes where this one stopped.
``stop_on_signals`` turns the first signal into a request the ingest loop checks between
commits; a second one interrupts at once (``KeyboardInterrupt``). While one commit is
being read (``interruptible``: diffing and parsing, nothing written yet) the first signal
interrupts that reading at once (``StopNow``): one huge commit must not hold a stop for
minutes, and the work dropped is redone by the next run.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopNow(BaseException):
    """A stop signal arrived while a commit was being read (not an ``Exception``: the
    walker's own handlers, a parse error's, must not take it for the commit's fault)."""


@dataclass(slots=True)
class StopRequest:
    """The signal that asked the run to stop, if any."""
    signum: int | None = None
    # True while a commit is being read: the signal raises ``StopNow`` there.
    interruptible: bool = False

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str | None:
        return None if self.signum is None else signal.Signals(self.signum).name


@contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    """A ``StopRequest`` set by the first SIGTERM/SIGINT while the block runs (main thread
    only: elsewhere the request simply never comes)."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if request.requested:
            raise KeyboardInterrupt  # asked twice: stop now
        request.signum = signum
        if request.interruptible:
            request.interruptible = False
            raise StopNow(signum)

    previous = {sig: signal.signal(sig, handler) for sig in _SIGNALS}
    try:
        yield request
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def reset_in_child() -> None:
    """Default signal dispositions in a forked worker (it inherits the parent's handler,
    which would turn the parent's own ``terminate()`` into a no-op flag)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
