"""Build real git repositories for tests, with pinned identities and times (pygit2 only).

    repo = FixtureRepo(tmp_path / "repo")             # non-bare, HEAD -> refs/heads/main
    a = repo.commit({"pkg/mod.py": "def f():\\n    return 1\\n"}, "add f")
    b = repo.commit({"pkg/mod.py": None}, "delete")     # None deletes a path
    c = repo.commit({}, "move", renames={"x.py": "y.py"})  # renames first, then edits
    repo.branch("topic", a); repo.checkout("topic")     # HEAD and work tree follow
    m = repo.merge_commit(b, c, {"pkg/mod.py": "..."}, "merge")  # ours' tree + resolution
    repo.write_worktree("pkg/new.py", "x = 1\\n"); repo.stage("pkg/new.py")
    repo.delete_worktree("pkg/mod.py")

* ``commit`` values: ``str`` (UTF-8 text), ``bytes``, ``None`` (delete), ``Gitlink(sha)``
  (a submodule pointer) or ``Symlink(target)``.
* Times: commit N (counting from 0, merges included) is authored and committed at
  ``BASE_TIME + 60 * N`` (UTC) unless ``when`` is given. Committer == author.
* ``parents`` defaults to ``[HEAD]`` (none in an empty repository); ``update_head=False``
  leaves HEAD and the work tree alone. Otherwise the branch HEAD names (or a detached
  HEAD) moves to the new commit and the work tree and index are reset to it.
* Every method returns hex shas; ``repo.repo`` is the underlying ``pygit2.Repository``.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import CheckoutStrategy, FileMode, ReferenceType

__all__ = ["BASE_TIME", "FixtureRepo", "Gitlink", "Symlink"]

BASE_TIME = 1_750_000_000  # 2025-06-15T15:06:40Z


@dataclass(frozen=True)
class Gitlink:
    """A submodule pointer to commit ``sha`` (the commit need not exist here)."""

    sha: str


@dataclass(frozen=True)
class Symlink:
    target: str


FileValue = str | bytes | None | Gitlink | Symlink


class FixtureRepo:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.repo = pygit2.init_repository(str(self.path), bare=False, initial_head="main")
        self.repo.config["user.name"] = "Fixture"
        self.repo.config["user.email"] = "fixture@example.com"
        self._count = 0

    @property
    def head(self) -> str | None:
        """The sha HEAD points at, None before the first commit."""
        if self.repo.head_is_unborn:
            return None
        return str(self.repo.head.target)

    def commit(
        self,
        files: dict[str, FileValue],
        message: str = "commit",
        *,
        author: tuple[str, str] = ("Alice", "alice@example.com"),
        when: int | None = None,
        parents: list[str] | None = None,
        renames: dict[str, str] | None = None,
        update_head: bool = True,
    ) -> str:
        if parents is None:
            parents = [] if self.head is None else [self.head]
        base = self.repo[parents[0]].peel(pygit2.Tree) if parents else None
        tree = self._tree(base, files, renames or {})
        return self._create(tree, parents, message, author, when, update_head)

    def merge_commit(
        self,
        ours_sha: str,
        theirs_sha: str,
        files_resolution: dict[str, FileValue],
        message: str = "merge",
        *,
        author: tuple[str, str] = ("Alice", "alice@example.com"),
        when: int | None = None,
        update_head: bool = True,
    ) -> str:
        """A two-parent commit whose tree is ours' tree plus ``files_resolution``."""
        base = self.repo[ours_sha].peel(pygit2.Tree)
        tree = self._tree(base, files_resolution, {})
        return self._create(tree, [ours_sha, theirs_sha], message, author, when, update_head)

    def branch(self, name: str, at_sha: str) -> None:
        self.repo.references.create(f"refs/heads/{name}", pygit2.Oid(hex=at_sha), force=True)

    def checkout(self, name_or_sha: str) -> None:
        """Point HEAD at a branch (or detach it at a sha) and reset the work tree to it."""
        ref = f"refs/heads/{name_or_sha}"
        if ref in self.repo.references:
            self.repo.set_head(ref)
        else:
            self.repo.set_head(pygit2.Oid(hex=name_or_sha))
        self.repo.checkout_head(strategy=CheckoutStrategy.FORCE)  # type: ignore[no-untyped-call]

    def write_worktree(self, path: str, content: str | bytes) -> None:
        full = self.path / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(content.encode() if isinstance(content, str) else content)

    def delete_worktree(self, path: str) -> None:
        (self.path / path).unlink()

    def stage(self, path: str) -> None:
        """``git add`` (or ``git rm --cached`` when the file is gone) one path."""
        index = self.repo.index
        if (self.path / path).exists():
            index.add(path)
        else:
            index.remove(path)
        index.write()

    def _tree(
        self, base: pygit2.Tree | None, files: dict[str, FileValue], renames: dict[str, str]
    ) -> pygit2.Oid:
        index = pygit2.Index()
        if base is not None:
            index.read_tree(base)
        for old, new in renames.items():
            entry = index[old]
            index.remove(old)
            index.add(pygit2.IndexEntry(new, entry.id, entry.mode))
        for path, value in files.items():
            if value is None:
                index.remove(path)
            elif isinstance(value, Gitlink):
                index.add(pygit2.IndexEntry(path, pygit2.Oid(hex=value.sha), FileMode.COMMIT))
            elif isinstance(value, Symlink):
                oid = self.repo.create_blob(value.target.encode())
                index.add(pygit2.IndexEntry(path, oid, FileMode.LINK))
            else:
                data = value.encode() if isinstance(value, str) else value
                index.add(pygit2.IndexEntry(path, self.repo.create_blob(data), FileMode.BLOB))
        return index.write_tree(self.repo)

    def _create(
        self,
        tree: pygit2.Oid,
        parents: list[str],
        message: str,
        author: tuple[str, str],
        when: int | None,
        update_head: bool,
    ) -> str:
        at = when if when is not None else BASE_TIME + 60 * self._count
        self._count += 1
        sig = pygit2.Signature(author[0], author[1], at, 0)
        oid = self.repo.create_commit(
            None, sig, sig, message, tree, [pygit2.Oid(hex=p) for p in parents]
        )
        if update_head:
            head = self.repo.references["HEAD"]
            if head.type == ReferenceType.SYMBOLIC:
                self.repo.references.create(str(head.target), oid, force=True)
            else:
                self.repo.set_head(oid)
            self.repo.checkout_head(strategy=CheckoutStrategy.FORCE)  # type: ignore[no-untyped-call]
        return str(oid)


def run_git(cwd: Path, *args: str, timeout: float = 120) -> str:
    """The real ``git`` CLI in ``cwd`` (the commands pygit2 does not have: notes, clone
    --depth, rebase, push); its stdout as text, raising on a non-zero exit."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, timeout=timeout).stdout



def pending_shas(repo_dir: Path) -> list[str]:
    """The commits a backfill of ``repo_dir`` would ingest, oldest first (its store is
    opened, created if missing, and left empty)."""
    from warpline.git.repo import head_commit, open_repo
    from warpline.ingest.driver import Ingestor
    from warpline.store.db import Store

    handle = open_repo(repo_dir)
    with Store.open(repo_dir) as store:
        return [str(c.id) for c in Ingestor(store, handle).pending(head_commit(handle))]
