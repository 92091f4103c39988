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

import pygit2

from warpline.errors import InvalidArgument
from warpline.git import notes
from warpline.git.repo import resolve_commit
from warpline.models import VerificationRecordEnvelope
from warpline.models.inputs import VerificationRecordInput
from warpline.service.shared.context import open_repo_only
from warpline.service.shared.envelope import envelope, iso_z
from warpline.store.db import Store
from warpline.store.verifications import insert_once

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
    noted = notes.lookup(repo, sha, kind)
    with Store.open(root) as store:
        idempotency, row = record(store, sha, kind, params.actor, noted)
    warnings: list[str] = []
    in_notes = noted is not None
    if not in_notes and getattr(params, "git_note", True):
        in_notes = _write_note(repo, notes.NoteRecord(sha, kind, row[0], int(row[1])),
                               warnings)
    data = {
        "commit_sha": sha,
        "kind": kind,
        "verified_at": iso_z(int(row[1])),
        "actor": row[0],
        "source": SOURCE,
        "idempotency": idempotency,
        "notes_ref": notes.NOTES_REF if in_notes else None,
    }
    return envelope(model=VerificationRecordEnvelope, tool=TOOL, repo=root, params=params,
                    data=data, warnings=warnings)


def _write_note(repo: pygit2.Repository, rec: notes.NoteRecord, warnings: list[str]) -> bool:
    """The store row is the record; the note is its copy for other machines."""
    failure = notes.try_append(repo, rec)
    if failure is not None:
        warnings.append(
            f"The record is stored locally but could not be written as a git note under "
            f"{notes.NOTES_REF} ({failure}); other clones will not see it. Rerun verify-record "
            "once the repository is writable.")
        return False
    return True


def record(store: Store, sha: str, kind: str, actor: str | None,
           noted: notes.NoteRecord | None = None) -> tuple[str, tuple[Any, ...]]:
    """Insert the record unless it exists; the outcome and the stored ``(actor, verified_at)``.

    A record already in the git notes (another machine's) is ``already_recorded``: its
    time and actor are copied into the store, so both places agree."""
    if noted is not None:
        actor, at = noted.actor, noted.verified_at
    else:
        at = int(time.time())
    inserted, row = insert_once(store, sha, kind, SOURCE, actor, at)
    inserted = inserted and noted is None
    return ("recorded" if inserted else "already_recorded"), row
