"""git alone, for the per-commit truth of the new languages (``bench_lang_truth.py``):
the newest non-merge commits with their changed file pairs (``git log --raw -M``, git's
own rename detection), the changed lines of a pair (``git diff -U0`` of the two blobs)
and the files of a commit's tree (``git cat-file --batch``, ``<commit>:<path>``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from _ast_truth import Blobs, Commit, FilePair

__all__ = ["Blobs", "Commit", "FilePair", "changed_lines", "commits"]

_ZERO = "0" * 40
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def commits(repo: Path, count: int, suffixes: tuple[str, ...]) -> list[Commit]:
    """The newest ``count`` non-merge commits (oldest first), each with its changed file
    pairs of which a side ends with one of ``suffixes``."""
    out = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.quotePath=false", "log", "--no-merges",
         f"-n{count}", "--root", "--raw", "-M", "--no-abbrev", "--format=@@%H"],
        capture_output=True, text=True, check=True, errors="replace").stdout
    found: list[Commit] = []
    for line in out.splitlines():
        if line.startswith("@@"):
            found.append(Commit(line[2:]))
        elif line.startswith(":") and found:
            meta, *paths = line.split("\t")
            old_mode, new_mode, old_blob, new_blob, status = meta[1:].split(" ")
            kind = status[0]
            if kind == "R":
                old, new = paths
            elif kind == "C":
                kind, old, new = "A", paths[1], paths[1]
            else:
                old = new = paths[0]
            if not (old.endswith(suffixes) or new.endswith(suffixes)):
                continue
            if kind == "T":  # a symlink is no source: only regular files are read
                kind = "M"
            regular = ("100644", "100755")
            found[-1].pairs.append(FilePair(
                kind, None if kind == "A" else old, None if kind == "D" else new,
                None if old_blob == _ZERO or old_mode not in regular else old_blob,
                None if new_blob == _ZERO or new_mode not in regular else new_blob))
    found.reverse()
    return found


def changed_lines(repo: Path, old_blob: str, new_blob: str) -> tuple[set[int], set[int]]:
    """Lines of the old blob deleted and lines of the new blob added by a zero-context
    diff (1-based). Blank lines are left out (layout, as the Python truth's own texts), so
    is a last line whose only change is its final newline (``\\ No newline at end of
    file``: the line-ending ruling)."""
    out = subprocess.run(["git", "-C", str(repo), "diff", "-U0", "--no-color",
                          "--no-ext-diff", old_blob, new_blob],
                         capture_output=True, check=True).stdout
    old: dict[int, bytes] = {}
    new: dict[int, bytes] = {}
    old_at = new_at = 0
    in_hunks = False
    for line in out.splitlines():
        match = _HUNK.match(line)
        if match is not None:
            old_at, new_at = int(match[1]), int(match[3])
            in_hunks = True
        elif not in_hunks:
            continue
        elif line.startswith(b"-"):
            if line[1:].strip():
                old[old_at] = line[1:]
            old_at += 1
        elif line.startswith(b"+"):
            if line[1:].strip():
                new[new_at] = line[1:]
            new_at += 1
    if old and new and b"\\ No newline at end of file" in out:
        last_old, last_new = max(old), max(new)
        if old[last_old] == new[last_new]:
            del old[last_old], new[last_new]
    return set(old), set(new)


def tree_file(blobs: Blobs, commit: str, path: str) -> bytes | None:
    """A file of ``commit``'s tree; None when it has none at ``path``."""
    data = blobs.read(f"{commit}:{path}")
    return data or None
