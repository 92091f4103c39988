"""Shallow clones: which commits are the boundary (``.git/shallow``), in pygit2 terms.

libgit2 shows a boundary commit with no parents, exactly like a root; it is not one: its
history was simply not fetched. ``boundary`` names those commits so the ingest can record
them as placeholders (no events) instead of "adding" every entity there.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2

from warpline.git.repo import SHALLOW_FIX

__all__ = ["SHALLOW_FIX", "boundary", "fetch", "partial_history_warning"]

_MAX_BYTES = 4 * 1024 * 1024


def _common_dir(repo: pygit2.Repository) -> Path:
    gitdir = Path(repo.path)
    pointer = gitdir / "commondir"  # a linked worktree names the shared git directory
    try:
        if pointer.is_file():
            target = Path(pointer.read_text(encoding="utf-8").strip())
            return target if target.is_absolute() else (gitdir / target).resolve()
    except OSError:
        pass
    return gitdir


def boundary(repo: pygit2.Repository) -> frozenset[str]:
    """The shallow boundary commits (empty for a complete clone)."""
    if not repo.is_shallow:
        return frozenset()
    try:
        with (_common_dir(repo) / "shallow").open("rb") as handle:
            text = handle.read(_MAX_BYTES).decode("ascii", "replace")
    except OSError:
        return frozenset()
    return frozenset(line.strip() for line in text.splitlines()
                     if len(line.strip()) in (40, 64))


def partial_history_warning(count: int) -> str:
    return (f"This is a shallow clone ({count} boundary commit{'s' if count != 1 else ''}): "
            "history before the boundary is missing, so timelines, churn, first-seen "
            "(`added`) facts and anything older are partial. To complete it, "
            f"{SHALLOW_FIX}; the next warpline call ingests the older history.")


FETCH_TIMEOUT_S = 90.0


def fetch(root: Path, remote: str, wants: list[str], *, depth: int | None,
          timeout: float = FETCH_TIMEOUT_S) -> str | None:
    """``git fetch`` of ``wants`` (commit ids or ``src:dst`` refspecs) from ``remote``, no
    tags, no prompts, within ``timeout``; ``--depth=N`` in a shallow clone (a complete
    clone stays complete). None when it worked, else why not (git's last line)."""
    from warpline.git.command import run

    if remote.startswith("-") or any(w.startswith("-") for w in wants):
        return f"refused to fetch {remote!r} {wants!r}: not a remote or commit"
    args = ["fetch", "--quiet", "--no-tags", "--no-recurse-submodules"]
    if depth is not None:
        args.append(f"--depth={depth}")
    try:
        done = run(root, [*args, remote, *wants], timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"`git fetch {remote}` did not finish within {timeout:.0f} s"
    except OSError as exc:
        return f"`git fetch {remote}` could not run ({exc})"
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return f"`git fetch {remote}` failed: {lines[-1] if lines else done.returncode}"
    return None
