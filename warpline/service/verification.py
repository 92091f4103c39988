"""``warpline_verification_record`` / ``verify_record``: CI records that a commit passed.

A record is ``(commit object id, kind, source='warpline')``, stored once: recording the same
tuple again is ``already_recorded`` and leaves the first row (its time and actor) as it was.
The ref is resolved *before* anything is written, so a bad ref creates no store, and a
symbolic ref (``HEAD``, a branch, a tag) is never persisted, only the commit it names.
Several CI jobs may record at once: the insert is one ``BEGIN IMMEDIATE`` transaction with
``ON CONFLICT DO NOTHING`` on the table's unique key, so nothing is lost and no duplicate
appears (tests/test_verification.py runs concurrent processes).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from warpline.errors import InvalidArgument
from warpline.git.repo import resolve_commit
from warpline.models import VerificationRecordEnvelope
from warpline.models.inputs import VerificationRecordInput
from warpline.service.context import open_repo_only
from warpline.service.envelope import envelope, iso_z
from warpline.store.db import Store

TOOL = "warpline_verification_record"
SOURCE = "warpline"


def verification_record(params: VerificationRecordInput, cwd: Path | None) -> dict[str, Any]:
    kind = params.kind.strip()
    if not kind:
        raise InvalidArgument(
            "`kind` must be a non-empty label such as test_pass or ci_pass.",
            field="kind", value=params.kind)
    root, repo = open_repo_only(params.repo, cwd)
    sha = str(resolve_commit(repo, params.commit, field="commit").id)
    with Store.open(root) as store:
        idempotency, row = record(store, sha, kind, params.actor)
    data = {
        "commit_sha": sha,
        "kind": kind,
        "verified_at": iso_z(int(row[1])),
        "actor": row[0],
        "source": SOURCE,
        "idempotency": idempotency,
    }
    return envelope(model=VerificationRecordEnvelope, tool=TOOL, repo=root, params=params,
                    data=data)


def record(store: Store, sha: str, kind: str, actor: str | None) -> tuple[str, tuple[Any, ...]]:
    """Insert the record unless it exists; the outcome and the stored ``(actor, verified_at)``."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO verifications (commit_sha, kind, source, actor, verified_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (commit_sha, kind, source) DO NOTHING",
            (sha, kind, SOURCE, actor, int(time.time())),
        )
        inserted = cursor.rowcount == 1
        row = conn.execute(
            "SELECT actor, verified_at FROM verifications "
            "WHERE commit_sha = ? AND kind = ? AND source = ?",
            (sha, kind, SOURCE),
        ).fetchone()
    return ("recorded" if inserted else "already_recorded"), tuple(row)
