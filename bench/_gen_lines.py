"""Lines of development (main and feature branches) and the rule that keeps merges clean.

A feature branch forks from main's tip with a copy of its files. While it is open, a path
belongs to at most one line: main may not touch what an open branch touched, and a branch
may not touch what main (or another branch) touched since it forked. A merge is then exactly
"main's files plus the branch's changed paths" — what git's three-way merge would produce.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pygit2
from _gen_files import FileEntry
from _gen_tree import TreeState

# name, email, utc offset (minutes), weight: a skewed team, one maintainer doing most of it
AUTHORS = (
    ("Maya Okafor", "maya@example.com", 0, 40), ("Lars Eriksen", "lars@example.com", 60, 20),
    ("Priya Raman", "priya@example.com", 330, 12), ("Tom Becker", "tom@example.com", 120, 10),
    ("Ana Souza", "ana@example.com", -180, 7), ("Kenji Sato", "kenji@example.com", 540, 5),
    ("Olu Adeyemi", "olu@example.com", 60, 4), ("Sam Carter", "sam@example.com", -300, 2),
)


@dataclass(slots=True)
class Line:
    name: str
    files: dict[str, FileEntry]
    tree: TreeState
    tip: pygit2.Oid | None = None
    owner: int = 0
    remaining: int = 0
    touched: dict[str, None] = field(default_factory=dict)
    main_touched: dict[str, None] = field(default_factory=dict)

    def fork(self, name: str, owner: int, remaining: int) -> Line:
        return Line(name, dict(self.files), self.tree.copy(), self.tip, owner, remaining)


@dataclass(slots=True)
class Stats:
    commits: int = 0
    merges: int = 0
    conflict_merges: int = 0
    renames: int = 0
    deletions: int = 0
    added_files: int = 0
    sizes: list[int] = field(default_factory=list)  # files changed per non-merge commit
    broken_blobs: dict[str, None] = field(default_factory=dict)
    longest_lines: int = 0
    longest_path: str = ""


class Clock:
    """Monotonic committer times; authors sometimes wrote the change earlier (rebases)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.now = 1_500_000_000 + rng.randrange(10_000_000)

    def signatures(self, author: int, committer: int) -> tuple[pygit2.Signature, ...]:
        rng = self.rng
        self.now += int(rng.expovariate(1 / 21600)) + 30
        if rng.random() < 0.02:
            self.now += rng.randint(2, 10) * 86400  # holidays
        authored = self.now - (rng.randint(60, 3 * 86400) if rng.random() < 0.1 else 0)
        a, c = AUTHORS[author], AUTHORS[committer]
        return (pygit2.Signature(a[0], a[1], authored, a[2]),
                pygit2.Signature(c[0], c[1], self.now, c[2]))


class Lines:
    """Main, the open feature branches, and commit creation with the ownership rule."""

    def __init__(self, repo: pygit2.Repository, rng: random.Random) -> None:
        self.repo = repo
        self.rng = rng
        self.clock = Clock(rng)
        self.main = Line("main", {}, TreeState(repo))
        self.branches: list[Line] = []
        self.stats = Stats()

    def author(self) -> int:
        return self.rng.choices(range(len(AUTHORS)), [a[3] for a in AUTHORS])[0]

    def forbidden(self, line: Line) -> set[str]:
        out: set[str] = set()
        for other in self.branches:
            if other is not line:
                out.update(other.touched)
        if line is not self.main:
            out.update(line.main_touched)
        return out

    def commit(self, line: Line, changes: dict[str, FileEntry | None], message: str,
               *, merge_from: Line | None = None) -> pygit2.Oid:
        stats = self.stats
        for path, entry in changes.items():
            if entry is None:
                if path in line.files:
                    del line.files[path]
                    line.tree.remove(path)
                continue
            line.files[path] = entry
            line.tree.set(path, entry.oid, entry.mode)
            if entry.kind == "py":
                if entry.model.broken:
                    stats.broken_blobs[str(entry.oid)] = None
                if entry.lines > stats.longest_lines:
                    stats.longest_lines, stats.longest_path = entry.lines, path
        if line is self.main:
            for branch in self.branches:
                branch.main_touched.update(dict.fromkeys(changes))
        else:
            line.touched.update(dict.fromkeys(changes))
        tree = line.tree.write()
        parents = [line.tip] if line.tip is not None else []
        if merge_from is not None:
            assert merge_from.tip is not None
            parents.append(merge_from.tip)
            author = committer = 0
        else:
            author = line.owner if line is not self.main else self.author()
            committer = author if self.rng.random() < 0.85 else 0
        sig_a, sig_c = self.clock.signatures(author, committer)
        line.tip = self.repo.create_commit(None, sig_a, sig_c, message, tree, parents)
        stats.commits += 1
        if merge_from is None:
            stats.sizes.append(len(changes))
        return line.tip

    def fork(self, name: str) -> Line:
        rng = self.rng
        branch = self.main.fork(name, self.author(), rng.choice((1, 1, 2, 2, 3, 3, 4, 5, 8, 13)))
        self.branches.append(branch)
        return branch

    def merge(self, branch: Line, resolve: tuple[str, FileEntry] | None, message: str) -> None:
        """Merge ``branch`` into main; ``resolve`` replaces one file as a conflict fix would."""
        self.branches.remove(branch)
        changes: dict[str, FileEntry | None] = {p: branch.files.get(p) for p in branch.touched}
        if resolve is not None:
            changes[resolve[0]] = resolve[1]
            self.stats.conflict_merges += 1
        self.stats.merges += 1
        self.commit(self.main, changes, message, merge_from=branch)
