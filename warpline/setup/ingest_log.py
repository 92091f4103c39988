"""``.weft/warpline/ingest.log``: one JSON line per unattended ingest, for ``doctor``.

Written by the hook's background process (and by the hook itself when the warpline it
names is gone), by install's first backfill and by ``doctor --fix``. Appends are single
``write`` calls of one short line, so concurrent writers do not interleave; the file is
trimmed to its last lines once it passes ``_MAX_BYTES``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from warpline.errors import WarplineError
from warpline.store import guard

_MAX_BYTES = 256 * 1024
_KEEP_LINES = 500
_TAIL_BYTES = 64 * 1024


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def log_path(root: Path) -> Path:
    return guard.state_dir(root) / "ingest.log"


def append(root: Path, record: dict[str, Any]) -> None:
    """Add one record (``at`` is filled in); never raises: logging must not fail an ingest."""
    try:
        directory = guard.check_state(root, create=True)
        if directory is None:
            return
        path = directory / "ingest.log"
        line = json.dumps({"at": _now(), **record}, sort_keys=True) + "\n"
        fd = guard.open_nofollow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
        if path.stat().st_size > _MAX_BYTES:
            _trim(path)
    except (OSError, WarplineError):  # a link where the log should be: not written
        pass


def append_if_news(root: Path, record: dict[str, Any]) -> None:
    """Append unless the record says "nothing to do" after a healthy run: a second
    ``install`` leaves the log's bytes alone too."""
    last = recent(root, limit=1)
    if not record.get("ok") or record.get("ingested") or not last or not last[-1].get("ok"):
        append(root, record)


def _trim(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)[-_KEEP_LINES:]
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    if guard.create_exclusive(tmp, b"".join(lines)):
        os.replace(tmp, path)


def recent(root: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The last ``limit`` records, oldest first; unreadable lines are skipped."""
    path = log_path(root)
    try:
        fd = guard.open_nofollow(path, os.O_RDONLY)
    except (OSError, WarplineError):
        return []
    try:
        with os.fdopen(fd, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(size - _TAIL_BYTES, 0))
            tail = handle.read()
    except OSError:
        return []
    records: list[dict[str, Any]] = []
    for raw in tail.splitlines()[-limit:]:
        try:
            record = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
