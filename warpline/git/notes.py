"""Verification records as git notes under ``refs/notes/warpline``: the channel that carries
"CI passed commit X" across machines with the repository's own remotes.

One note per verified commit; its text is one JSON object per line, one line per record::

    {"actor":"ci","commit":"<sha>","kind":"test_pass","source":"warpline","type":"verification","v":1,"verified_at":1767225600}

Lines are written sorted and unique, so two machines' notes for the same commit merge with
git's ``cat_sort_uniq`` strategy (a union) into exactly what either would have written.
A record is identified by ``(commit, kind, source)``, as in the store: a second line for the
same identity (another machine's time or actor) is kept but never counts twice, and the
earliest ``verified_at`` wins, so every machine answers the same.

Notes come from other machines and are untrusted: a line that is not a well-formed record of
this commit is skipped (and counted), and each note and the whole ref are read within caps.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pygit2

from warpline import scope as scopes
from warpline.errors import StoreUnsafe

NOTES_REF = "refs/notes/warpline"
SOURCE = "warpline"
MAX_NOTE_BYTES = 256 * 1024
MAX_LINE_BYTES = 4096
MAX_NOTES = 200_000

_GIT_ERRORS = (pygit2.GitError, KeyError, ValueError)


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One verification record read from a git note."""
    commit: str
    kind: str
    actor: str | None
    verified_at: int
    extent: str = "unknown"  # warpline.scope: whole_suite | selection | attested | unknown
    run: dict[str, Any] | None = None

    def rank(self) -> int:
        return scopes.rank(self.extent, scopes.basis_of(self.run))


@dataclass(slots=True)
class NotesRead:
    """The records read from the notes ref, and what was skipped or cut off."""
    records: list[NoteRecord]
    skipped_lines: int = 0
    truncated: bool = False


def record_line(record: NoteRecord) -> str:
    """The canonical one-line JSON text of a record (sorted keys, no spaces)."""
    obj: dict[str, Any] = {"v": 1, "type": "verification", "commit": record.commit,
                           "kind": record.kind, "source": SOURCE, "actor": record.actor,
                           "verified_at": record.verified_at}
    if record.extent != "unknown":  # what the run proved (lines before scopes lack it)
        obj["scope"] = record.extent
    if record.run is not None:
        obj["run"] = record.run
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _parse_line(line: str, commit: str) -> NoteRecord | None:
    if len(line) > MAX_LINE_BYTES:
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("type") != "verification" \
            or obj.get("source") != SOURCE or obj.get("commit") != commit:
        return None
    kind, actor, at = obj.get("kind"), obj.get("actor"), obj.get("verified_at")
    if not isinstance(kind, str) or not kind.strip() or len(kind) > 200:
        return None
    if actor is not None and not isinstance(actor, str):
        return None
    if not isinstance(at, int) or isinstance(at, bool) or at < 0:
        return None
    extent, run = scopes.parse(obj.get("scope", "unknown"), obj.get("run"))
    return NoteRecord(commit=commit, kind=kind, actor=actor, verified_at=at, extent=extent,
                      run=run)


def _note_text(repo: pygit2.Repository, commit: str) -> str | None:
    try:
        note = repo.lookup_note(commit, NOTES_REF)
    except _GIT_ERRORS:
        return None
    blob = repo.get(note.id)
    data = blob.data if isinstance(blob, pygit2.Blob) else b""
    return data[:MAX_NOTE_BYTES].decode("utf-8", "replace")


def _records_in(text: str, commit: str, out: NotesRead) -> list[NoteRecord]:
    found: list[NoteRecord] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        record = _parse_line(line.strip(), commit)
        if record is None:
            out.skipped_lines += 1
        else:
            found.append(record)
    return found


def earliest(records: list[NoteRecord]) -> list[NoteRecord]:
    """One record per ``(commit, kind)``: the strongest scope (``warpline.scope.rank``),
    then the earliest, ties broken by actor text."""
    best: dict[tuple[str, str], NoteRecord] = {}
    for record in records:
        key = (record.commit, record.kind)
        current = best.get(key)
        if current is None or (-record.rank(), record.verified_at, record.actor or "") < (
                -current.rank(), current.verified_at, current.actor or ""):
            best[key] = record
    return list(best.values())


def has_notes_ref(repo: pygit2.Repository) -> bool:
    try:
        return repo.references.get(NOTES_REF) is not None
    except _GIT_ERRORS:
        return False


def read_all(repo: pygit2.Repository) -> NotesRead:
    """Every well-formed record under the notes ref (one per commit and kind)."""
    out = NotesRead(records=[])
    if not has_notes_ref(repo):
        return out
    raw: list[NoteRecord] = []
    try:
        listing = repo.notes(NOTES_REF)  # type: ignore[call-arg]  # (stubs lack the ref)
        for count, note in enumerate(listing):
            if count >= MAX_NOTES:
                out.truncated = True
                break
            annotated = note.annotated_id
            blob = repo.get(note.id)
            data = blob.data if isinstance(blob, pygit2.Blob) else b""
            raw.extend(_records_in(data[:MAX_NOTE_BYTES].decode("utf-8", "replace"),
                                   str(annotated), out))
    except _GIT_ERRORS:
        out.truncated = True
    out.records = earliest(raw)
    return out


def lookup(repo: pygit2.Repository, commit: str, kind: str) -> NoteRecord | None:
    """The record for ``(commit, kind)`` in the notes, if any."""
    text = _note_text(repo, commit)
    if text is None:
        return None
    matches = [r for r in _records_in(text, commit, NotesRead([])) if r.kind == kind]
    return earliest(matches)[0] if matches else None


def _signature(repo: pygit2.Repository) -> pygit2.Signature:
    try:
        return repo.default_signature
    except _GIT_ERRORS:
        return pygit2.Signature("warpline", "warpline@localhost")


LOCK_NAME = "warpline-notes.lock"


@contextmanager
def _locked(repo: pygit2.Repository) -> Iterator[None]:
    """One note writer at a time on this machine (several CI jobs may record at once):
    read-add-write of a note is otherwise a lost update. POSIX advisory lock in the git
    directory; where ``fcntl`` is missing, no lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    # Never through a link: the lock file is created in the git directory itself.
    path = os.path.join(repo.path, LOCK_NAME)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND
                     | getattr(os, "O_NOFOLLOW", 0), 0o666)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise StoreUnsafe(f"{path!r} is a symbolic link; warpline never writes through one. "
                          f"Remove it (`rm {path}`) and rerun.", field="path",
                          value=path) from None
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def append(repo: pygit2.Repository, record: NoteRecord) -> bool:
    """Add the record's line to its commit's note; False when that identity is there with
    a scope at least as strong."""
    with _locked(repo):
        text = _note_text(repo, record.commit) or ""
        existing = _records_in(text, record.commit, NotesRead([]))
        if any(r.kind == record.kind and r.rank() >= record.rank() for r in existing):
            return False
        lines = {line.strip() for line in text.splitlines() if line.strip()}
        lines.add(record_line(record))
        body = "\n".join(sorted(lines)) + "\n"
        sig = _signature(repo)
        repo.create_note(body, sig, sig, record.commit, NOTES_REF, True)
    return True


def try_append(repo: pygit2.Repository, record: NoteRecord) -> str | None:
    """``append``, for a caller whose record already lives elsewhere (the store): None when
    the note holds the record, else why it could not be written (a read-only repository, a
    lock, a damaged notes ref)."""
    try:
        append(repo, record)
    except (pygit2.GitError, OSError, ValueError) as exc:
        return str(exc)
    return None
