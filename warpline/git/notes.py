"""Verification records as git notes under ``refs/notes/warpline``: the channel that carries
"CI passed commit X" across machines with the repository's own remotes.

One note per verified commit; its text is one JSON object per line, one line per record::

    {"actor":"ci","commit":"<sha>","kind":"test_pass","source":"warpline","type":"verification","v":1,"verified_at":1767225600}

Lines are written sorted and unique, so two machines' notes for the same commit merge with
git's ``cat_sort_uniq`` strategy (a union) into exactly what either would have written.
A record is identified by ``(commit, kind, source)``, as in the store: a second line for the
same identity (another machine's time or actor) is kept but never counts twice, and the
earliest ``verified_at`` wins, so every machine answers the same.

Notes come from other machines and are untrusted (docs/verification-and-work.md, "Trust
model"): a line that is not a well-formed record of this commit is skipped, counted and
named (``NotesRead.skipped``): JSON nested past the parser's depth, a string with a lone
surrogate, a ``verified_at`` after the reading machine's clock (plus a day of skew). A
note's size is read from its object header before its bytes: a note past
``MAX_NOTE_BYTES`` is never read, and the whole ref is read within ``MAX_NOTES`` notes and
``MAX_TOTAL_BYTES``. A line may carry ``sig``, an SSH signature over the line without it
(``warpline.git.signing``).
"""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pygit2

from warpline import scope as scopes
from warpline.errors import StoreUnsafe

NOTES_REF = "refs/notes/warpline"
SOURCE = "warpline"
MAX_NOTE_BYTES = 256 * 1024
MAX_LINE_BYTES = 4096
MAX_NOTES = 200_000
MAX_TOTAL_BYTES = 64 * 1024 * 1024
FUTURE_SKEW_S = 86_400  # a record dated later than now plus this is not believed
MAX_NAMED = 20  # skipped lines named in an answer (the rest are counted)

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
    signature: str | None = None  # an SSH signature over ``message`` (``signing``)
    message: str = ""  # the line as signed: the record without ``sig``

    def rank(self) -> int:
        return scopes.rank(self.extent, scopes.basis_of(self.run))


@dataclass(slots=True)
class NotesRead:
    """The records read from the notes ref, and what was skipped or cut off."""
    records: list[NoteRecord]
    skipped_lines: int = 0
    truncated: bool = False
    skipped: list[str] = field(default_factory=list)  # the first MAX_NAMED, named
    signed: list[NoteRecord] = field(default_factory=list)  # every line carrying a ``sig``

    def skip(self, commit: str, why: str) -> None:
        self.skipped_lines += 1
        if len(self.skipped) < MAX_NAMED:
            self.skipped.append(f"{commit[:12]}: {why}")

    def warning(self) -> str | None:
        """The words an answer adds when lines were not believed."""
        if not self.skipped_lines and not self.truncated:
            return None
        more = self.skipped_lines - len(self.skipped)
        named = "; ".join(self.skipped) + (f"; and {more} more" if more > 0 else "")
        cut = (f" The notes ref was read only up to {MAX_NOTES} notes / "
               f"{MAX_TOTAL_BYTES >> 20} MiB." if self.truncated else "")
        return (f"{self.skipped_lines} line(s) under {NOTES_REF} are not verification "
                f"records warpline believes and were ignored ({named}).{cut} Who can push "
                "that ref can write there; see the trust model in "
                "docs/verification-and-work.md.")


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


def _parse_line(line: str, commit: str, now: int | None = None) -> NoteRecord | str:
    """The record on ``line``, or why it is not one (a few words naming the defect)."""
    now = int(time.time()) if now is None else now
    if len(line) > MAX_LINE_BYTES:
        return f"a line of {len(line)} bytes, over {MAX_LINE_BYTES}"
    try:
        obj = json.loads(line)
        json.dumps(obj, ensure_ascii=False).encode("utf-8")  # no lone surrogate anywhere
    except RecursionError:
        return "JSON nested past the parser's depth"
    except UnicodeEncodeError:
        return "a string with a lone surrogate"
    except ValueError:
        return "not JSON"
    if not isinstance(obj, dict) or obj.get("type") != "verification" \
            or obj.get("source") != SOURCE or obj.get("commit") != commit:
        return "not a verification record of this commit"
    kind, actor, at = obj.get("kind"), obj.get("actor"), obj.get("verified_at")
    if not isinstance(kind, str) or not kind.strip() or len(kind) > 200:
        return "no kind"
    if actor is not None and (not isinstance(actor, str) or len(actor) > 1000):
        return "an actor that is not a short string"
    if not isinstance(at, int) or isinstance(at, bool) or at < 0:
        return "verified_at is not a time"
    if at > now + FUTURE_SKEW_S:
        return f"verified_at {at} is in the future"
    signature = obj.pop("sig", None)
    if signature is not None and not isinstance(signature, str):
        return "a sig that is not a string"
    extent, run = scopes.parse(obj.get("scope", "unknown"), obj.get("run"))
    message = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return NoteRecord(commit=commit, kind=kind, actor=actor, verified_at=at, extent=extent,
                      run=run, signature=signature, message=message)


def _note_text(repo: pygit2.Repository, commit: str, out: NotesRead | None = None) -> str | None:
    try:
        note = repo.lookup_note(commit, NOTES_REF)
    except _GIT_ERRORS:
        return None
    return _blob_text(repo, note.id, commit, out or NotesRead([]))


def _blob_text(repo: pygit2.Repository, oid: pygit2.Oid, commit: str,
               out: NotesRead) -> str | None:
    """A note's text, its size taken from the object header first: a note past
    ``MAX_NOTE_BYTES`` is never read (named in ``out``)."""
    try:
        size = repo.odb.read_header(oid)[1]
    except _GIT_ERRORS:
        return None
    if size > MAX_NOTE_BYTES:
        out.skip(commit, f"a note of {size} bytes, over {MAX_NOTE_BYTES}: not read")
        return None
    blob = repo.get(oid)
    data = blob.data if isinstance(blob, pygit2.Blob) else b""
    return data.decode("utf-8", "replace")


def _records_in(text: str, commit: str, out: NotesRead) -> list[NoteRecord]:
    found: list[NoteRecord] = []
    now = int(time.time())
    for line in text.splitlines():
        if not line.strip():
            continue
        record = _parse_line(line.strip(), commit, now)
        if isinstance(record, str):
            out.skip(commit, record)
            continue
        found.append(record)
        if record.signature is not None:
            out.signed.append(record)
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
    budget = MAX_TOTAL_BYTES
    try:
        listing = repo.notes(NOTES_REF)  # type: ignore[call-arg]  # (stubs lack the ref)
        for count, note in enumerate(listing):
            if count >= MAX_NOTES or budget <= 0:
                out.truncated = True
                break
            text = _blob_text(repo, note.id, str(note.annotated_id), out)
            if text is not None:
                budget -= len(text)
                raw.extend(_records_in(text, str(note.annotated_id), out))
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
        lines.add(_signed(repo, record_line(record)))
        body = "\n".join(sorted(lines)) + "\n"
        sig = _signature(repo)
        repo.create_note(body, sig, sig, record.commit, NOTES_REF, True)
    return True


def _signed(repo: pygit2.Repository, line: str) -> str:
    """``line`` with its ``sig`` when the user configured signing (``signing.sign``)."""
    from warpline.git import signing

    signature = signing.sign(repo, line)
    if signature is None:
        return line
    obj = json.loads(line)
    obj["sig"] = signature
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def try_append(repo: pygit2.Repository, record: NoteRecord) -> str | None:
    """``append``, for a caller whose record already lives elsewhere (the store): None when
    the note holds the record, else why it could not be written (a read-only repository, a
    lock, a damaged notes ref, a configured signature that could not be made)."""
    try:
        append(repo, record)
    except (pygit2.GitError, OSError, ValueError) as exc:
        return str(exc)
    return None
