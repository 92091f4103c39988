"""``warpline hook-ingest``: the hooks' background process.

It leaves git's session (``setsid``) and lowers its priority, so it outlives the git
command and a terminal closing, and stays out of the user's way. Then, one at a time per
work tree (an ``flock`` on ``.weft/warpline/ingest.lock``), it catches the store up to
HEAD: whatever is new since the last run, so one process covers a merge, a pull or a whole
rebase. Per-commit failures land in the store's ``ingest_failures`` (the Ingestor records
them); a failure of the run itself (a corrupt store, say) in ``ingest.log``. It always
exits 0: nobody is waiting for it.

A repository in which warpline was not installed (a ``core.hooksPath`` shared with other
repositories) is left alone: no config, no store, no log. The one other caller is a read
tool that ran out of its catch-up budget (``--hook read-backfill``,
``service/shared/background.py``): it continues the backfill wherever the read left a
store, installed or not, and leaves at once when another ingest holds the lock.
"""

from __future__ import annotations

import contextlib
import os
import time
from functools import partial
from pathlib import Path
from typing import Any

from warpline.ingest import lock as ingestlock
from warpline.setup import ingest_log
from warpline.setup.local_state import installed_config
from warpline.store.db import store_path

LOCK_WAIT_S = 15 * 60
_ROUNDS = 5


def hook_ingest(repo: str, hook: str) -> int:
    _detach()
    from warpline.git.repo import open_repo

    root = Path(repo).absolute()
    try:
        handle = open_repo(root)
    except Exception:
        return 0  # not a work tree: nothing to ingest and nowhere to say so
    continuing = hook == ingestlock.READ_BACKFILL
    if continuing:
        # Started by a read tool that could not catch up in its budget: the store it
        # answered from exists, installed or not. When another ingest holds the lock, it
        # is already doing this work.
        if not store_path(root).exists():
            return 0
    elif installed_config(root, handle.path) is None:
        return 0
    record: dict[str, Any] = {"hook": hook, "pid": os.getpid()}
    started = time.monotonic()
    with ingestlock.exclusive(root, 0.0 if continuing else LOCK_WAIT_S) as locked:
        if not locked and continuing:
            return 0
        if not locked:
            ingest_log.append(root, {**record, "ok": True, "ingested": 0,
                                     "note": "another ingest held the lock too long; "
                                             "it or the next hook covers this commit"})
            return 0
        try:
            record.update(catch_up(root, facts=True))
        except Exception as exc:  # everything goes to the log: there is no one to tell
            record.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:2000])
    record["seconds"] = round(time.monotonic() - started, 3)
    ingest_log.append(root, record)
    return 0


def catch_up(root: Path, progress: Any = None, *, facts: bool = False) -> dict[str, Any]:
    """Ingest everything reachable from HEAD; repeat while HEAD moves meanwhile. ``facts``
    (the background process): then read what each stored change means."""
    from warpline.git.repo import head_commit
    from warpline.ingest.stopping import stop_on_signals
    from warpline.service.shared import context

    ingested = failed = 0
    first_error: str | None = None
    head_sha: str | None = None
    facts_read = 0
    with context.open_context(str(root)) as ctx, stop_on_signals() as stop:
        for _ in range(_ROUNDS):
            for _ in range(_ROUNDS):
                head = head_commit(ctx.repo)
                head_sha = None if head is None else str(head.id)
                report = context.catch_up(ctx, interactive=False, progress=progress,
                                          stop=stop)
                ingested += report.commits_ingested
                failed += len(report.failures)
                if report.failures and first_error is None:
                    sha, error = report.failures[0]
                    first_error = f"commit {sha[:12]}: {error}"
                if stop.requested:  # stopped between two commits: what was written stays
                    first_error = first_error or (f"stopped by {stop.name} with "
                                                  f"{report.commits_behind} commits left; "
                                                  "the next run resumes")
                    break
                moved = head_commit(ctx.repo)
                if moved is None or str(moved.id) == head_sha or report.failures:
                    break
            if not facts or stop.requested:
                break
            # Then what each stored change means; new commits (HEAD moved meanwhile)
            # interrupt it and are ingested first, so reads never wait behind it.
            from warpline.ingest.facts import fill

            read = fill(ctx.store, ctx.repo, stop=stop,
                        interrupt=partial(_moved, ctx.repo, head_sha))
            facts_read += read.read
            if not read.left or stop.requested or read.unwritable is not None:
                break
    return {"ok": failed == 0 and not stop.requested, "head": head_sha, "ingested": ingested,
            "failed": failed, "error": first_error, "facts_read": facts_read}


def _moved(repo: Any, seen: str | None) -> bool:
    """Whether HEAD is no longer ``seen`` (new commits to ingest first)."""
    from warpline.git.repo import head_commit

    head = head_commit(repo)
    return (None if head is None else str(head.id)) != seen


def _detach() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.setsid()
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)
