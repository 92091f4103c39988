"""The work tree's ingest lock (``.weft/warpline/ingest.lock``): one background ingest at a
time, and a way for a read tool to see that one is running.

The hooks' ``hook-ingest`` and the background backfill a read tool starts hold it (an
``flock``, released when the process ends, however it ends). A read tool never takes it:
it only asks whether it is held (``held``), and when it is, it answers from what is stored
instead of spending its catch-up budget walking the same commits as the holder.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from warpline.store import guard
from warpline.store.readonly import ENVIRONMENT_ERRNOS

__all__ = ["LOCK_NAME", "READ_BACKFILL", "exclusive", "held"]

LOCK_NAME = "ingest.lock"
# ``hook-ingest --hook`` of the backfill a read tool leaves running (and its log lines).
READ_BACKFILL = "read-backfill"


@contextlib.contextmanager
def exclusive(root: Path, wait_s: float) -> Iterator[bool]:
    """Hold the work tree's ingest lock, waiting up to ``wait_s`` for it; yields whether it
    is held (a filesystem where no lock file can exist yields True: the ingest meets the
    same refusal, ``store_unwritable``, and reports it)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): concurrent ingests converge anyway
        yield True
        return
    try:
        directory = guard.check_state(root, create=True)
        assert directory is not None  # create=True makes it or raises store_unsafe
        fd = guard.open_nofollow(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:  # a read-only filesystem, a full disk: no lock file can exist
        if exc.errno not in ENVIRONMENT_ERRNOS:
            raise
        yield True
        return
    try:
        deadline = time.monotonic() + wait_s
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


def held(state_dir: Path) -> bool:
    """Whether another process holds the ingest lock in ``state_dir`` now (never waits,
    never creates the file; False wherever it cannot tell)."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = guard.open_nofollow(state_dir / LOCK_NAME, os.O_RDONLY)
    except Exception:  # absent, a link, unreadable: no holder this process can see
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False
