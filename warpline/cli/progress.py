"""Progress of a long run (backfill, install's first backfill) on stderr: count, rate, ETA.

stdout carries the answer (a table or JSON), so progress goes to stderr. On a terminal one
line is redrawn in place, at most ``TERMINAL_INTERVAL_S`` apart (a worker backfill reports
every commit: redrawing each one cost thousands of writes a minute); elsewhere (a CI log,
a pipe) a plain line is written every ``WARPLINE_PROGRESS_INTERVAL_S`` (5 s), and a run
shorter than that writes none. The final state is always shown when a line was shown before it.

``progress_line`` and ``format_duration`` are pure; ``ProgressLine`` decides when to write
and writes, reading time from an injected clock.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["TERMINAL_INTERVAL_S", "ProgressLine", "format_duration",
           "progress_line", "stderr_progress"]

TERMINAL_INTERVAL_S = 0.1
_BAR = 20
# Below this much elapsed time a rate is mostly start-up noise: no rate or ETA yet.
_MIN_RATE_WINDOW_S = 0.25
# An ETA extrapolates the rate over the rest, so it waits for the rate to be measured over
# enough work: this long, and 2 % of the run (at least 20 commits, at most half of it).
# The first commits of a history are no sample of the rest (issue 34: a first frame said
# "ETA 1h53m" for a run of 1 min 38 s).
_MIN_ETA_WINDOW_S = 1.0


def _eta_sample(total: int) -> int:
    return max(1, min(max(20, total // 50), total // 2))


def format_duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``: an ETA people read at a glance."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def progress_line(label: str, done: int, total: int, elapsed_s: float, *,
                  bar: bool = False, unit: str = "commits",
                  counted: int | None = None) -> str:
    """One progress line: ``backfill 1,200/16,238 commits (7%) 410 commits/s ETA 36s``,
    with a ``[###....]`` bar after the label when ``bar``. ``elapsed_s`` is the time since
    the first commit's report; until it is long enough to mean something, the rate and
    the ETA are left out rather than guessed (the ETA until the rate is measured over
    enough of the run: ``_eta_sample``). ``counted``: how many of ``done`` were done
    in ``elapsed_s`` (default all)."""
    total = max(total, done)
    percent = 100 * done // total if total else 100
    parts = [label]
    if bar:
        filled = _BAR * done // total if total else _BAR
        parts.append(f"[{'#' * filled}{'.' * (_BAR - filled)}]")
    parts.append(f"{done:,}/{total:,} {unit} ({percent}%)")
    counted = done if counted is None else counted
    if elapsed_s >= _MIN_RATE_WINDOW_S and counted > 0:
        rate = counted / elapsed_s
        parts.append(f"{rate:,.0f} {unit}/s" if rate >= 10 else f"{rate:.1f} {unit}/s")
        if done < total and elapsed_s >= _MIN_ETA_WINDOW_S and counted >= _eta_sample(total):
            parts.append(f"ETA {format_duration((total - done) / rate)}")
        else:
            parts.append(f"in {format_duration(elapsed_s)}")
    return " ".join(parts)


class ProgressLine:
    """A ``Progress`` callback (``(done, total)``) that writes ``progress_line`` to
    ``stream``: redrawn in place on a terminal (``tty``), plain lines elsewhere."""

    def __init__(self, label: str, stream: TextIO, *, tty: bool, plain_interval_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.stream = stream
        self.tty = tty
        self.clock = clock
        self.interval_s = TERMINAL_INTERVAL_S if tty else plain_interval_s
        self.writes = 0
        self._started: float | None = None
        self._last: float | None = None
        self._first = 0
        self._width = 0

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if self._started is None:
            # The rate counts from the first report: the walk for pending commits before
            # it is not ingest time.
            self._started = self._last = now
            self._first = done
        finished = done >= total
        assert self._last is not None
        if finished:
            if self.writes:
                self._write(done, total, now, final=True)
            return
        if now - self._last < self.interval_s:
            return
        self._write(done, total, now, final=False)

    def _write(self, done: int, total: int, now: float, *, final: bool) -> None:
        assert self._started is not None
        line = progress_line(self.label, done, total, now - self._started, bar=self.tty,
                             counted=done - self._first)
        if self.tty:
            pad = " " * max(0, self._width - len(line))
            self.stream.write(f"\r{line}{pad}" + ("\n" if final else ""))
            self._width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.writes += 1
        self._last = now


def stderr_progress(label: str) -> ProgressLine:
    """Progress for a long run, on this process's stderr."""
    from warpline import settings

    return ProgressLine(label, sys.stderr, tty=sys.stderr.isatty(),
                        plain_interval_s=settings.progress_interval_s())
