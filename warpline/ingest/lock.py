"""The work tree's ingest lock (``.weft/warpline/ingest.lock``): one background ingest at a
time, and a way for a read tool to see that one is running.

The hooks' ``hook-ingest`` and the background backfill a read tool starts hold it (an
``flock``, released when the process ends, however it ends). A read tool never takes it:
it only asks whether it is held (``held``), and when it is, it answers from what is stored
instead of spending its catch-up budget walking the same commits as the holder.

The holder writes its pid into the file. A holder that is stopped (``SIGSTOP``, a
terminal's Ctrl-Z, a frozen cgroup: state ``T`` in ``/proc``) makes no progress, so its
lock counts as not held: reads catch up themselves, and ``exclusive`` stops waiting for it
(the store's own transactions keep two writers apart; a commit stored twice is skipped).
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
                if time.monotonic() > deadline or _stopped(_holder(fd)):
                    yield False
                    return
                time.sleep(0.05)
        with contextlib.suppress(OSError):  # who holds it, for ``held`` and ``exclusive``
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
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
        return not _stopped(_holder(fd))
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _holder(fd: int) -> int | None:
    """The pid the holder wrote into the lock file, if any."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _stopped(pid: int | None) -> bool:
    """Whether ``pid`` is a stopped process (``T``/``t`` in ``/proc/<pid>/stat``)."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read(4096).rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in (b"T", b"t")
