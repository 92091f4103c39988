"""The rest of a backfill, in the background, after a read tool ran out of its budget.

A read tool catches up for ``WARPLINE_INTERACTIVE_BUDGET_S`` and answers. On a long
history that is a small part of it, and without this every later call would spend the
budget again on the next slice. So the call that stops short starts what the git hooks
start: ``warpline hook-ingest`` (``--hook read-backfill``), detached, in its own session,
at low priority, holding the work tree's ingest lock (``ingest/lock.py``) so two never
run at once; later calls see the lock held and answer from the store without walking
(``context.catch_up``). The command is this interpreter running warpline's own module in
isolated mode: nothing the repository holds is run. ``WARPLINE_BACKGROUND_BACKFILL=0``
turns it off.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from warpline import settings
from warpline.ingest import lock as ingestlock

__all__ = ["continue_backfill"]

# The children this process started. Each has a thread waiting for it, so one that ends is
# reaped at once: a long-lived MCP server keeps no zombie until its next call.
_started: list[subprocess.Popen[bytes]] = []


def continue_backfill(root: Path, state_dir: Path) -> bool:
    """Start the background backfill for ``root`` unless one is running or it is turned
    off; whether one is running now (started here or before)."""
    _started[:] = [child for child in _started if child.poll() is None]
    if ingestlock.held(state_dir):
        return True
    if not settings.background_backfill():
        return False
    command = [sys.executable, "-I", "-m", "warpline.cli", "hook-ingest", "--hook",
               ingestlock.READ_BACKFILL, "--repo", str(root)]
    try:
        child = subprocess.Popen(
            command, cwd=str(root), env=settings.child_environment(),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True)
    except OSError:
        return False  # no process could start (limits, memory): the next call tries again
    _started.append(child)
    threading.Thread(target=child.wait, name="warpline-reaper", daemon=True).start()
    return True
