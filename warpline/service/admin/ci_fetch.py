"""What a CI checkout lacks, fetched by warpline: the base commit, and enough history for
the pull request's range to be whole.

``actions/checkout`` fetches one commit by default (``fetch-depth: 1``: the merge commit of
a pull request, no branch refs), GitLab a few dozen. The range ``merge-base..head`` then
names commits that are not in the clone: the base (``pull_request.base.sha``), or the
history between the two. ``ensure`` fetches them from the job's own remote, by commit id,
bounded (depth 50, then 250, then 1,000; each fetch within a timeout, all within a
deadline), never prompting (``warpline.git.command``). A range is *whole* when the merge
base exists and walking from the head to it meets no shallow boundary commit (whose parents
were not fetched): otherwise the range would silently miss commits or take in all history.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pygit2
from pygit2.enums import SortMode

from warpline.errors import InvalidRevRange
from warpline.git.lookups import commit_or_none, revparse_commit
from warpline.git.shallow import boundary, fetch

DEPTHS = (50, 250, 1000)
DEADLINE_S = 240.0
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


@dataclass(slots=True)
class Fetching:
    """The repository as it is after any fetch, and what was fetched or failed."""

    repo: pygit2.Repository
    remote: str
    allowed: bool = True
    fetched: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    deadline: float = field(default_factory=lambda: time.monotonic() + DEADLINE_S)

    def get(self, wants: list[str], depth: int | None) -> bool:
        if not self.allowed or time.monotonic() > self.deadline:
            return False
        root = self.repo.workdir or self.repo.path
        if not self.repo.is_shallow:
            depth = None  # a complete clone stays complete
        elif depth is None:
            depth = DEPTHS[0]
        why = fetch(Path(root), self.remote, wants, depth=depth,
                    timeout=max(5.0, min(90.0, self.deadline - time.monotonic())))
        if why is not None:
            self.failures.append(why)
            return False
        self.fetched.append(" ".join(wants) + (f" (depth {depth})" if depth else ""))
        self.repo = pygit2.Repository(self.repo.path)  # libgit2 rereads the new objects
        return True


def is_sha(text: str) -> bool:
    return bool(_SHA.match(text))


def commit(state: Fetching, ref: str, branch_ok: bool, *, depth: int | None = None,
           along: tuple[str, ...] = ()) -> pygit2.Commit | None:
    """The commit ``ref`` names, fetched when it is a commit id or a branch name missing
    here (a branch lands as ``refs/remotes/<remote>/<name>``). ``along``: commit ids to
    deepen in the same fetch (the head, whose history the range needs too)."""
    found = _lookup(state.repo, ref, branch_ok, state.remote)
    if found is not None or not state.allowed:
        return found
    also = [sha for sha in along if state.repo.is_shallow]
    if is_sha(ref):
        state.get([ref, *also], depth)
    elif branch_ok and pygit2.reference_is_valid_name(f"refs/heads/{ref}") \
            and not ref.startswith("-"):
        state.get([f"+refs/heads/{ref}:refs/remotes/{state.remote}/{ref}", *also], depth)
    return _lookup(state.repo, ref, branch_ok, state.remote)


def _lookup(repo: pygit2.Repository, ref: str, branch_ok: bool,
            remote: str) -> pygit2.Commit | None:
    if is_sha(ref):
        return commit_or_none(repo, ref)
    names = [f"{remote}/{ref}", ref] if branch_ok else [ref]
    for name in names:
        found = revparse_commit(repo, name)
        if found is not None:
            return found
    return None


def whole_base(repo: pygit2.Repository, base: pygit2.Oid, head: pygit2.Oid) -> pygit2.Oid | None:
    """The merge base when ``merge-base..head`` is whole in this clone, else None."""
    merge_base = repo.merge_base(base, head)
    if merge_base is None or not repo.is_shallow:
        return merge_base
    edge = boundary(repo)
    walker = repo.walk(head, SortMode.TOPOLOGICAL)
    walker.hide(merge_base)
    if any(str(c.id) in edge for c in walker):
        return None
    return merge_base


def ensure_range(state: Fetching, base: pygit2.Commit, head: pygit2.Commit,
                 base_ref: str, head_ref: str) -> pygit2.Oid:
    """The merge base of a whole range, deepening the clone as needed; raises
    ``InvalidRevRange`` (``details.shallow``, ``details.fetch``) when it cannot be made
    whole."""
    merge_base = whole_base(state.repo, base.id, head.id)
    if merge_base is None and state.repo.is_shallow:
        for depth in DEPTHS:
            if not state.get([str(base.id), str(head.id)], depth):
                break
            merge_base = whole_base(state.repo, base.id, head.id)
            if merge_base is not None:
                break
    if merge_base is not None:
        return merge_base
    shallow = state.repo.is_shallow
    if state.failures:
        why = "; ".join(state.failures)
    elif shallow and not state.allowed:
        why = "the clone is shallow and fetching is off"
    elif shallow:
        why = f"not within {DEPTHS[-1]} commits of either"
    else:
        why = "they share no history"
    raise InvalidRevRange(
        f"{base_ref!r} and {head_ref!r} have no merge base with a whole history here "
        f"({why}). Use `fetch-depth: 0` (GitHub) / `GIT_DEPTH: 0` (GitLab), or "
        "`git fetch --deepen=N`.", field="base", value=base_ref,
        details={"shallow": shallow, "fetch": state.failures, "fetched": state.fetched})
