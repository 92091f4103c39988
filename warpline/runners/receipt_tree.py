"""Whether a run tested the commit's own tree, beyond ``git status`` (issue 38, item 2).

``git status`` does not see two ways a run can test other bytes than the commit's:

* **index flags**: a tracked file marked ``--skip-worktree`` or ``--assume-unchanged`` is
  never compared with the work tree, so an edit to it (a failing test made to pass) is
  invisible. Every flagged file whose bytes differ from HEAD's, or that is absent, counts.
* **ignored files the runner loaded**: an ignored ``conftest.py``, ini file or test module
  is left out of ``status`` but is read by the run. The runner names what it loaded
  (``RunWatchState.loaded``: pytest's plugin gives its conftest modules, its ini file and
  the test modules it collected); each must be HEAD's own bytes.

Both answers are paths with why, for the receipt's ``dirty_paths``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

import pygit2

from warpline.git import command

_TIMEOUT_S = 30.0
_MAX_CHECKED = 5000


def _head_blob(tree: pygit2.Tree | None, path: str) -> str | None:
    if tree is None:
        return None
    try:
        entry = tree[path]
    except KeyError:
        return None
    return str(entry.id) if entry.type_str == "blob" else None


def _same_as_head(root: Path, tree: pygit2.Tree | None, path: str) -> bool:
    disk = root / path
    try:
        if disk.is_symlink() or not disk.is_file():
            return False
        return str(pygit2.hashfile(str(disk))) == _head_blob(tree, path)
    except OSError:
        return False


def _head_tree(repo: pygit2.Repository) -> pygit2.Tree | None:
    if repo.head_is_unborn:
        return None
    return repo.head.peel(pygit2.Commit).tree


def hidden_by_index_flags(root: Path, repo: pygit2.Repository) -> list[str]:
    """Tracked files git does not compare with the work tree (``--skip-worktree``,
    ``--assume-unchanged``) whose work-tree bytes are not HEAD's."""
    try:
        done = command.run(root, ["ls-files", "-v", "-z"], timeout=_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):  # git missing or stuck: not shown clean
        return ["(the index could not be read for skip-worktree / assume-unchanged files)"]
    if done.returncode != 0:
        return ["(the index could not be read for skip-worktree / assume-unchanged files)"]
    tree = _head_tree(repo)
    out = []
    for record in done.stdout.split("\0"):
        if len(record) < 3:
            continue
        tag, path = record[0], record[2:]
        if tag == "S" or tag.islower():
            if not _same_as_head(root, tree, path):
                out.append(f"{path} (hidden by --skip-worktree or --assume-unchanged)")
    return out


def loaded_not_committed(root: Path, repo: pygit2.Repository,
                         loaded: Iterable[str]) -> list[str]:
    """Files the run loaded (absolute paths) inside the work tree that are not HEAD's own
    bytes (ignored, untracked or edited)."""
    tree = _head_tree(repo)
    real_root = root.resolve()
    out = []
    for count, path in enumerate(sorted(set(loaded))):
        if count >= _MAX_CHECKED:
            break
        try:
            relative = Path(path).resolve().relative_to(real_root).as_posix()
        except (OSError, ValueError):
            continue  # outside the repository: an installed plugin, not the commit
        if relative.startswith(".weft/") or relative.startswith(".git/"):
            continue
        if not _same_as_head(root, tree, relative):
            out.append(f"{relative} (loaded by the run; not the commit's bytes)")
    return out
