"""The git ref test maps travel in: ``refs/warpline/testmaps``.

The ref names one parentless commit whose tree holds the newest few maps, one blob each,
named ``<commit sha>.zlib`` (``warpline.testmap.wire``). A new set of maps is a new
parentless commit, so the ref never accumulates history: its size is bounded by the number
of maps it holds and their bound, whatever the number of pushes. Reading is bounded too
(entry count, blob size read from the object header before the bytes, one blob at a time:
``listing`` then ``blob_bytes``), since the ref comes from a remote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pygit2

MAP_REF = "refs/warpline/testmaps"
INCOMING_REF = "refs/warpline/testmaps-incoming"
MAX_ENTRIES = 64
_NAME = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})\.zlib$")
_GIT_ERRORS = (pygit2.GitError, KeyError, ValueError)


@dataclass(frozen=True, slots=True)
class MapBlob:
    """One map as the ref holds it: the commit it describes and its compressed bytes."""

    commit: str
    data: bytes


def ref_target(repo: pygit2.Repository, ref: str) -> str | None:
    try:
        return str(repo.references[ref].resolve().target)
    except _GIT_ERRORS:
        return None


@dataclass(frozen=True, slots=True)
class MapEntry:
    """One map the ref lists, before its bytes are read: the commit its name gives, the
    blob's id and its size (from the object header)."""

    commit: str
    blob: str
    size: int


def listing(repo: pygit2.Repository, ref: str) -> tuple[list[MapEntry], list[str]]:
    """The map entries under ``ref`` (at most ``MAX_ENTRIES``; no blob is read, only
    object headers) and what was skipped (names, kinds): never raises."""
    skipped: list[str] = []
    target = ref_target(repo, ref)
    if target is None:
        return [], skipped
    try:
        commit = repo[target].peel(pygit2.Commit)
        entries = list(commit.tree)
    except _GIT_ERRORS as exc:
        return [], [f"{ref} is not a commit with a tree ({exc})"]
    if len(entries) > MAX_ENTRIES:
        skipped.append(f"{ref} holds {len(entries)} entries; read the first {MAX_ENTRIES}")
        entries = entries[:MAX_ENTRIES]
    out: list[MapEntry] = []
    for entry in entries:
        name = str(entry.name)
        found = _NAME.match(name)
        if found is None or entry.type_str != "blob":
            skipped.append(f"{name[:80]!r} is not a map blob")
            continue
        try:
            size = int(repo.odb.read_header(entry.id)[1])
        except _GIT_ERRORS:
            skipped.append(f"{name} cannot be read")
            continue
        out.append(MapEntry(found.group(1), str(entry.id), size))
    return out, skipped


def blob_bytes(repo: pygit2.Repository, entry: MapEntry) -> bytes | None:
    """The bytes of one listed map (read only after its header's size was accepted)."""
    try:
        blob = repo[entry.blob]
    except _GIT_ERRORS:
        return None
    return bytes(blob.data) if isinstance(blob, pygit2.Blob) else None


def write(repo: pygit2.Repository, ref: str, maps: list[MapBlob]) -> str:
    """Point ``ref`` at a new parentless commit holding exactly ``maps``."""
    builder = repo.TreeBuilder()
    for blob in maps:
        builder.insert(f"{blob.commit}.zlib", repo.create_blob(blob.data),
                       pygit2.enums.FileMode.BLOB)
    tree = builder.write()
    signature = pygit2.Signature("warpline", "warpline@localhost", 0, 0)
    message = f"warpline test maps: {len(maps)}\n"
    oid = repo.create_commit(None, signature, signature, message, tree, [])
    repo.references.create(ref, oid, force=True)
    return str(oid)
