"""What one ingest run did (``IngestReport``) and the progress callback's type, in their own
module: a caller that only reads a report (every tool answering on a caught-up store, a
caught-up ``warpline backfill``) need not import the walker. The progress line people see
is ``warpline.cli.progress``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["MAX_UNPARSED", "WORKER_LOST", "IngestReport", "Progress"]

MAX_UNPARSED = 100
# How a failure that is not the commit's own begins (its worker died): such a commit is
# retried by the next run, not recorded as failed.
WORKER_LOST = "ingest worker exited"

Progress = Callable[[int, int], None]


@dataclass(slots=True)
class IngestReport:
    """What one ingest run did: commits, events, unparsed files, failures, what is left."""
    commits_ingested: int = 0
    commits_skipped: int = 0
    events_written: int = 0
    unparsed_files: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    commits_behind: int = 0
    stopped_by: str | None = None  # the signal that stopped the run between two commits
    placeholders: int = 0  # shallow boundary commits recorded without events
    # Distinct paths of Python file versions that did not parse cleanly (first ones).
    unparsed_paths: list[str] = field(default_factory=list)
    reopened: int = 0  # placeholders replaced after the clone was deepened
    # The store could not be written (the store_unwritable hint): an answer from what is
    # stored, possibly missing ``commits_behind`` commits and fresh reachability flags.
    unwritable: str | None = None
    reach_stale: bool = False
    # A background backfill (``ingest/lock.py``) is ingesting the rest now.
    backfill_running: bool = False

    def note_unparsed(self, files: Iterable[str]) -> None:
        for path in files:
            self.unparsed_files += 1
            if path not in self.unparsed_paths and len(self.unparsed_paths) < MAX_UNPARSED:
                self.unparsed_paths.append(path)

    @property
    def complete(self) -> bool:
        return self.commits_behind == 0 and not self.failures and self.unwritable is None
