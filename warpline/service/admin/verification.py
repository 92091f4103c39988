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

from warpline import scope as scopes
from warpline.errors import InvalidArgument
from warpline.git import notes
from warpline.git.repo import resolve_commit
from warpline.models import VerificationRecordEnvelope
from warpline.models.inputs import VerificationRecordInput
from warpline.scope import basis_of
from warpline.scope import rank as scope_rank
from warpline.service.shared.context import open_repo_only
from warpline.service.shared.envelope import envelope, iso_z
from warpline.store.db import Store
from warpline.store.verifications import insert_once

TOOL = "warpline_verification_record"
SOURCE = "warpline"


def verification_record(params: VerificationRecordInput, cwd: Path | None, *,
                        backed: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Record ``params.commit`` passed ``params.kind``.

    ``backed`` is what a test run proved (``(extent, run facts)`` from the receipt that
    backs the pass: ``pytest --warpline-verify``, ``warpline ci --record``); without it the
    record is an actor's attestation (``scope: attested``): warpline saw no run."""
    kind = params.kind.strip()
    if not kind:
        raise InvalidArgument(
            "`kind` must be a non-empty label such as test_pass or ci_pass.",
            field="kind", value=params.kind)
    root, repo = open_repo_only(params.repo, cwd)
    sha = str(resolve_commit(repo, params.commit, field="commit").id)
    extent, run = scopes.parse(*backed) if backed is not None else ("attested", None)
    noted = notes.lookup(repo, sha, kind)
    with Store.open(root) as store:
        idempotency, row = record(store, sha, kind, params.actor, noted, extent, run)
    stored = notes.NoteRecord(sha, kind, row[0], int(row[1]), row[2], row[3])
    warnings: list[str] = []
    in_notes = noted is not None and noted.rank() >= stored.rank()
    if not in_notes and getattr(params, "git_note", True):
        in_notes = _write_note(repo, stored, warnings)
    data = {
        "commit_sha": sha,
        "kind": kind,
        "verified_at": iso_z(int(row[1])),
        "actor": row[0],
        "source": SOURCE,
        "idempotency": idempotency,
        "notes_ref": notes.NOTES_REF if in_notes else None,
        "scope": row[2],
        "run": row[3],
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
           noted: notes.NoteRecord | None = None, extent: str = "attested",
           run: dict[str, Any] | None = None) -> tuple[str, tuple[Any, ...]]:
    """Insert the record unless one as strong exists; the outcome and the stored
    ``(actor, verified_at, scope, run)``.

    A record already in the git notes (another machine's) of the same scope is
    ``already_recorded``: its time and actor are copied into the store, so both places
    agree. A note line claiming more than this call proves is a remote's claim, never
    copied into this clone's own records (freshness shows it as ``remote_unverified``);
    a stronger scope than the one stored is a new record."""
    if noted is not None and noted.rank() == scope_rank(extent, basis_of(run)):
        actor, at, extent, run = noted.actor, noted.verified_at, noted.extent, noted.run
        _, row = insert_once(store, sha, kind, SOURCE, actor, at, extent, run)
        return "already_recorded", row
    inserted, row = insert_once(store, sha, kind, SOURCE, actor, int(time.time()), extent, run)
    return ("recorded" if inserted else "already_recorded"), row
