"""Is the store file sound? SQLite's ``PRAGMA quick_check``, once per change of the file.

A store with overwritten pages keeps answering every query that does not happen to read
them, and keeps accepting writes. ``quick_check`` walks every b-tree page (tens of
milliseconds on a requests- or pip-sized store): too much for every call, so its verdict is
remembered against the file's identity — inode, size and ``mtime_ns`` of ``warpline.db``
and of its ``-wal`` — in memory and in ``integrity.json`` beside the store. Anything that
changes the file moves that identity and the next open checks again, except warpline's
own writes, which carry the verdict over when the store closes (``carry``: SQLite writing
into a sound file keeps it sound). A verdict taken while the file's mtime is within
``_RACY_NS`` of the check's start is not remembered (git's "racy" rule: a write in the
same tick would leave the identity unchanged).

A store past ``_BUDGET_S`` of checking is ``unchecked`` (remembered too, so a huge store
costs the budget once per change, not per call); ``warpline doctor`` checks it whole.
The damage found is registered per repository root so every answer of this process can
say so (``warnings``), and writes refuse with ``store_corrupt`` (``Store.transaction``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from warpline.store import guard

CACHE_FILE = "integrity.json"
_BUDGET_S = 2.0
_RACY_NS = 2_000_000_000
_STEPS = 10_000  # VM instructions between budget checks

Key = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the check found, as ``status`` reports it."""

    state: str  # ok | damaged | unchecked
    finding: str | None = None  # SQLite's words for the damage


_MEMO: dict[Path, tuple[Key, Verdict]] = {}
# Repository root -> the damage its store showed at its last open in this process.
_DAMAGED: dict[Path, str] = {}


def _key(path: Path) -> Key | None:
    parts: list[int] = []
    for name in (path.name, path.name + "-wal"):
        try:
            info = os.stat(path.with_name(name))
        except FileNotFoundError:
            parts.extend((0, 0, 0))
            continue
        except OSError:
            return None
        if info.st_size == 0:  # a reader's fresh, empty -wal: the same as none
            parts.extend((0, 0, 0))
            continue
        parts.extend((info.st_ino, info.st_size, info.st_mtime_ns))
    return tuple(parts)


def _racy(key: Key, started_ns: int) -> bool:
    return any(mtime >= started_ns - _RACY_NS for mtime in key[2::3] if mtime)


def _cached(path: Path, key: Key) -> Verdict | None:
    memo = _MEMO.get(path)
    if memo is not None and memo[0] == key:
        return memo[1]
    try:
        raw = json.loads((path.with_name(CACHE_FILE)).read_text(encoding="utf-8"))
        if tuple(raw["key"]) != key or raw["state"] not in ("ok", "damaged", "unchecked"):
            return None
        verdict = Verdict(str(raw["state"]), raw.get("finding"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    _MEMO[path] = (key, verdict)
    return verdict


def _persist(path: Path, key: Key, verdict: Verdict) -> None:
    """Best effort: a read-only directory or a full disk only costs a check next time."""
    data = json.dumps({"key": list(key), "state": verdict.state,
                       "finding": verdict.finding}).encode()
    temp = path.with_name(f"{CACHE_FILE}.{os.getpid()}.tmp")
    try:
        if guard.create_exclusive(temp, data):
            os.replace(temp, path.with_name(CACHE_FILE))
    except OSError:
        pass
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass


def _quick_check(conn: sqlite3.Connection) -> Verdict | None:
    """SQLite's page-level check within the budget; None when the environment stopped it
    (a lock, an I/O error): no verdict then."""
    deadline = time.monotonic() + _BUDGET_S
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), _STEPS)
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.OperationalError as exc:
        if time.monotonic() > deadline and "interrupt" in str(exc):
            return Verdict("unchecked", f"the check passed its {_BUDGET_S:.0f} s budget")
        return _damage_or_none(exc)
    except sqlite3.DatabaseError as exc:
        return _damage_or_none(exc)
    finally:
        conn.set_progress_handler(None, 0)
    return Verdict("ok") if rows == ["ok"] else Verdict("damaged", "; ".join(rows))


def _damage_or_none(exc: sqlite3.Error) -> Verdict | None:
    from warpline.errors import StoreUnreadable
    from warpline.store.db import translate

    if isinstance(translate(exc, "checking"), StoreUnreadable):
        return Verdict("damaged", str(exc))
    return None


def verdict(path: Path, conn: sqlite3.Connection, *, persist: bool = True) -> Verdict:
    """The store's soundness, checked at most once per change of the file. ``persist``:
    remember it in ``integrity.json`` (never for the read-only status probe)."""
    key = _key(path)
    if key is not None:
        known = _cached(path, key)
        if known is not None:
            return known
    started = time.time_ns()
    found = _quick_check(conn)
    if found is None:
        return Verdict("unchecked", "the check could not run")
    if key is not None and key == _key(path) and not _racy(key, started):
        _MEMO[path] = (key, found)
        if persist:
            _persist(path, key, found)
    return found


def carry(path: Path, found: Verdict) -> None:
    """After this process's own writes (committed by SQLite into a file found sound, the
    connections closed): the file's new identity keeps the verdict."""
    key = _key(path)
    if key is not None:
        _MEMO[path] = (key, found)
        _persist(path, key, found)


def note(root: Path, found: Verdict) -> None:
    """What every answer about ``root`` says from now on in this process."""
    if found.state == "damaged":
        _DAMAGED[root] = found.finding or "damaged"
    else:
        _DAMAGED.pop(root, None)


def noted(root: Path) -> str | None:
    return _DAMAGED.get(root)


def repair_command(root: Path) -> str:
    import shlex

    return f"warpline doctor --fix --repo {shlex.quote(str(root))}"


def damage_words(root: Path, finding: str) -> str:
    """The one wording of a damaged store, shared by status, warnings and ``store_corrupt``."""
    return (f"The warpline store of {root} is damaged (SQLite: {finding}): answers may be "
            "missing history and nothing is written to it. Repair: "
            f"`{repair_command(root)}` moves the damaged file aside (kept as "
            "warpline.db.broken-<time>, nothing is deleted) and rebuilds the history from "
            "git; verification records written as git notes (refs/notes/warpline) stay "
            "readable, records kept only in the store stay in the moved file.")


def damage_warnings(root: Path) -> list[str]:
    finding = _DAMAGED.get(root)
    return [] if finding is None else [damage_words(root, finding)]
