"""``warpline hook-ingest``: the hooks' background process.

It leaves git's session (``setsid``) and lowers its priority, so it outlives the git
command and a terminal closing, and stays out of the user's way. Then, one at a time per
work tree (an ``flock`` on ``.weft/warpline/ingest.lock``), it catches the store up to
HEAD: whatever is new since the last run, so one process covers a merge, a pull or a whole
rebase. Per-commit failures land in the store's ``ingest_failures`` (the Ingestor records
them); a failure of the run itself (a corrupt store, say) in ``ingest.log``. It always
exits 0: nobody is waiting for it.

A repository in which warpline was not installed (a ``core.hooksPath`` shared with other
repositories) is left alone: no config, no store, no log.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from warpline.setup import ingest_log
from warpline.setup.local_state import installed_config

LOCK_NAME = "ingest.lock"
_LOCK_WAIT_S = 15 * 60
_ROUNDS = 5


def hook_ingest(repo: str, hook: str) -> int:
    _detach()
    from warpline.git.repo import open_repo

    root = Path(repo).absolute()
    try:
        handle = open_repo(root)
    except Exception:
        return 0  # not a work tree: nothing to ingest and nowhere to say so
    if installed_config(root, handle.path) is None:
        return 0
    record: dict[str, Any] = {"hook": hook, "pid": os.getpid()}
    started = time.monotonic()
    with _exclusive(root) as locked:
        if not locked:
            ingest_log.append(root, {**record, "ok": True, "ingested": 0,
                                     "note": "another ingest held the lock too long; "
                                             "it or the next hook covers this commit"})
            return 0
        try:
            record.update(catch_up(root))
        except Exception as exc:  # everything goes to the log: there is no one to tell
            record.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:2000])
    record["seconds"] = round(time.monotonic() - started, 3)
    ingest_log.append(root, record)
    return 0


def catch_up(root: Path, progress: Any = None) -> dict[str, Any]:
    """Ingest everything reachable from HEAD; repeat while HEAD moves meanwhile."""
    from warpline.git.repo import head_commit
    from warpline.service.shared import context
    from warpline.store.stopping import stop_on_signals

    ingested = failed = 0
    first_error: str | None = None
    head_sha: str | None = None
    with context.open_context(str(root)) as ctx, stop_on_signals() as stop:
        for _ in range(_ROUNDS):
            head = head_commit(ctx.repo)
            head_sha = None if head is None else str(head.id)
            report = context.catch_up(ctx, interactive=False, progress=progress, stop=stop)
            ingested += report.commits_ingested
            failed += len(report.failures)
            if report.failures and first_error is None:
                sha, error = report.failures[0]
                first_error = f"commit {sha[:12]}: {error}"
            if stop.requested:  # stopped between two commits: what was written stays
                first_error = first_error or (f"stopped by {stop.name} with "
                                              f"{report.commits_behind} commits left; the "
                                              "next run resumes")
                break
            moved = head_commit(ctx.repo)
            if moved is None or str(moved.id) == head_sha or report.failures:
                break
    return {"ok": failed == 0 and not stop.requested, "head": head_sha, "ingested": ingested,
            "failed": failed, "error": first_error}


@contextlib.contextmanager
def _exclusive(root: Path) -> Iterator[bool]:
    """Hold the work tree's ingest lock (waiting for it, within reason)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): concurrent ingests converge anyway
        yield True
        return
    from warpline.store import guard
    from warpline.store.readonly import ENVIRONMENT_ERRNOS

    try:
        directory = guard.check_state(root, create=True)
        assert directory is not None  # create=True makes it or raises store_unsafe
        fd = guard.open_nofollow(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:  # a read-only filesystem, a full disk: no lock file can exist
        if exc.errno not in ENVIRONMENT_ERRNOS:
            raise
        yield True  # the catch-up meets the same refusal (store_unwritable) and logs it
        return
    try:
        deadline = time.monotonic() + _LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    yield False
                    return
                time.sleep(0.05)
        yield True
    finally:
        os.close(fd)  # closing releases the lock


def _detach() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.setsid()
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)
