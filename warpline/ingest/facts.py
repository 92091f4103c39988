"""Events first, facts when asked: the facts of what a change means, read for stored
events (``store/eventfacts.py``) and kept.

A backfill stores events, lineages and file facts only. ``fill`` reads the facts of the
pending events in a scope (an answer's commits, lineages or events; or all of them, for
the background pass that ``hook-ingest`` runs at low priority after catching up), newest
commit first, each commit bounded in time like its walk (``bounded``), and writes them in
a few transactions. An answer gives it its budget: what is left stays pending (nature
unknown, and the answer says so) for a later answer or the background pass. A commit whose
facts fail or run past ``WARPLINE_COMMIT_TIMEOUT_S`` keeps an unknown nature for good, as
a version no reader could parse does.

An answer whose facts cannot all be read within its budget does not spend the budget on a
part of them: once a share of it is spent (``PROBE_SHARE``), the rate so far projects the
whole; a projection past the budget ends the read there, and the answer comes at once,
saying what is unknown (a partial read after the whole budget is no more complete;
requests, ``changed --skip-cosmetic HEAD~1000..HEAD`` on a fresh store: 2,224 events,
3.4 s of CPU, against 0.42 s for the whole warm answer). The background pass reads them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING, Any

from warpline import settings
from warpline.errors import StoreUnwritable
from warpline.git.events import EntityChange
from warpline.ingest.bounded import CommitTimeout, bounded
from warpline.ingest.stopping import StopNow, StopRequest
from warpline.store.db import Store
from warpline.store.eventfacts import PendingEvent, pending_events, record_facts

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from warpline.git.eventfacts import FactReader
    from warpline.git.walks import Repository

__all__ = ["FactsReport", "fill"]

# Facts written per transaction: a background pass killed loses at most this much.
FLUSH = 2000
ASK_EVERY_S = 0.5
# The share of an answer's budget read before the rest is projected from the rate so far.
PROBE_SHARE = 0.05
_clock = time.monotonic  # the tests' slow reader replaces it


@dataclass(slots=True)
class FactsReport:
    """What one ``fill`` did."""
    read: int = 0  # events whose facts were read and kept (known or unknown for good)
    left: int = 0  # events in scope still pending: the budget or a stop cut the run short
    # The store could not be written: what was read is lost, its events stay pending.
    unwritable: str | None = None
    parses: int = 0  # file versions parsed
    reused: int = 0  # versions asked for again and found parsed (one parse per version)
    # Set when the read stopped early: reading every event in scope was projected to
    # take this long (seconds), past the budget.
    projected_s: float | None = None


def fill(store: Store, repo: Repository, *, shas: Sequence[str] | None = None,
         lineages: Iterable[int] | None = None, events: Iterable[int] | None = None,
         budget_s: float | None = None, stop: StopRequest | None = None,
         reader: FactReader | None = None,
         interrupt: Callable[[], bool] | None = None) -> FactsReport:
    """Read and keep the facts of the pending events in scope (None: every scope).
    ``interrupt``: asked between commits (at most every ``ASK_EVERY_S``), True ends the
    run early (the background pass: HEAD moved, new commits come first)."""
    from warpline.git.eventfacts import FactReader

    pending = pending_events(store, shas=shas, lineages=lineages, events=events)
    report = FactsReport()
    if not pending:
        return report
    reader = reader if reader is not None else FactReader(repo)
    hits, misses = reader.cache.hits, reader.cache.misses
    started = _clock()
    deadline = None if budget_s is None else started + budget_s
    probe = None if budget_s is None else started + budget_s * PROBE_SHARE
    limit = settings.commit_timeout_s()
    found: list[tuple[int, Any]] = []
    done = 0  # events read so far
    asked = time.monotonic()
    for sha, group in groupby(pending, key=lambda row: row[1]):
        if stop is not None and stop.requested:
            break
        if interrupt is not None and time.monotonic() - asked >= ASK_EVERY_S:
            asked = time.monotonic()
            if interrupt():
                break
        now = _clock()
        left = None if deadline is None else deadline - now
        if left is not None and left <= 0:
            break
        if probe is not None and budget_s is not None and now >= probe:
            probe = None  # projected once
            spent = now - started
            whole = spent * len(pending) / max(done, 1)
            if whole > budget_s:
                report.projected_s = whole
                break
        rows = list(group)
        try:
            with bounded(limit if left is None else min(limit, left), stop):
                facts = reader.facts(sha, [_change(row) for row in rows])
        except CommitTimeout:
            if left is not None and left < limit:
                break  # the answer's budget, not the commit's bound: still pending
            facts = [None] * len(rows)  # past its bound: unknown for good
        except StopNow:
            break
        except Exception:  # a reader's failure is this commit's: unknown, never a crash
            facts = [None] * len(rows)
        found.extend((row[0], fact) for row, fact in zip(rows, facts, strict=True))
        done += len(rows)
        if len(found) >= FLUSH and not _keep(store, found, report):
            break
    _keep(store, found, report)
    report.left = len(pending) - report.read
    report.parses = reader.cache.misses - misses
    report.reused = reader.cache.hits - hits
    return report


def _keep(store: Store, found: list[tuple[int, Any]], report: FactsReport) -> bool:
    """Write what was read; False when the store refuses (the rest is not read)."""
    if not found or report.unwritable is not None:
        return report.unwritable is None
    try:
        record_facts(store, found)
    except StoreUnwritable as exc:  # a damaged store's answer says so already
        report.unwritable = ("it is damaged: `warpline doctor` says how to repair it"
                             if exc.code == "store_corrupt" else exc.hint)
        found.clear()
        return False
    report.read += len(found)
    found.clear()
    return True


def _change(row: PendingEvent) -> EntityChange:
    _, _, locator, kind, change_kind, path, previous_locator, previous_path, also = row
    return EntityChange(locator, kind, change_kind, path,  # type: ignore[arg-type]
                        previous_locator, previous_path, also)
