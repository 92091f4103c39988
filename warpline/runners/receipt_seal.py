"""Receipts the code under test cannot write (issue 38, item 2): a seal per receipt.

A receipt row is only as good as who wrote it. The code under test runs in the runner's
process, as the same user, with the store's SQLite file within reach: it could insert a
passing row after a failing run (an ``atexit`` handler does it after the runner's own write).
So every receipt carries a seal, an HMAC-SHA256 of its stored fields under the store's
receipt key (``receipt.key`` in the state directory: 32 random bytes, created once, mode
0600, never through a link). The runner's watch reads the key when the run starts
(``RunWatchState.key``), before the test modules are imported, and seals what it writes;
``service.admin.backing`` reads only receipts whose seal holds.

What it stops: a row written without the key (raw SQL, ``store.receipts.add``, a store or
row copied from another clone or fixture). What it cannot stop: code that sets out to read
the key file (or the runner's memory) and forge a seal: nothing inside one user's process
can keep a secret from code running in that process. Against that, record from a job whose
tests are trusted, or use signed records (docs/verification-and-work.md, "Who writes a
receipt").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from warpline.store import guard

KEY_FILE = "receipt.key"
SEAL = "seal"
_KEY_BYTES = 32


def key(root: Path, *, create: bool) -> bytes | None:
    """The store's receipt key; created when absent and ``create``; None when absent."""
    state = guard.check_state(root, create=create)
    if state is None:
        return None
    path = state / KEY_FILE
    if create:
        guard.create_exclusive(path, secrets.token_bytes(_KEY_BYTES), 0o600)
    try:
        fd = guard.open_nofollow(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        data = os.read(fd, _KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == _KEY_BYTES else None


def for_run(root: Path) -> bytes | None:
    """The key a run seals its receipt with, read (created once) before the tests start;
    None when the store cannot hold it: that run's receipt backs no pass."""
    from warpline.errors import WarplineError

    try:
        return key(root, create=True)
    except (OSError, WarplineError):
        return None


def _message(commit: str | None, clean: bool, exit_status: int, finished_at: int,
             facts: dict[str, Any]) -> bytes:
    body = {k: v for k, v in facts.items() if k != SEAL}
    return json.dumps([commit, bool(clean), int(exit_status), int(finished_at), body],
                      sort_keys=True, separators=(",", ":"), default=str).encode()


def seal(secret: bytes, commit: str | None, clean: bool, exit_status: int, finished_at: int,
         facts: dict[str, Any]) -> str:
    return hmac.new(secret, _message(commit, clean, exit_status, finished_at, facts),
                    hashlib.sha256).hexdigest()


def holds(secret: bytes | None, receipt: dict[str, Any], facts: dict[str, Any]) -> bool:
    """Whether a stored receipt (its columns in ``receipt``, its facts) carries the seal
    of ``secret``."""
    given = facts.get(SEAL)
    if secret is None or not isinstance(given, str):
        return False
    expected = seal(secret, receipt.get("commit"), bool(receipt.get("clean")),
                    int(receipt.get("exit_status") or 0), int(receipt.get("finished_at") or 0),
                    facts)
    return hmac.compare_digest(given, expected)
