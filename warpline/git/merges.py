"""What a merge commit itself introduced (DESIGN §4): not the branches' changes again.

The re-merge rule: the parents are merged again automatically (libgit2's three-way
``merge_trees`` from their merge base, renames followed, what ``git show --remerge-diff``
compares against), and that re-merge counts as one more "parent" below. So a clean merge
where the branches edited different lines of one function, or where one branch still had a
file under its pre-rename path, introduces nothing; a conflict resolution or an evil edit
does. Where the re-merge itself conflicted on a path, that path is judged against the
parents only, line by line: an entity counts only when one of its own lines differs from
every parent (what ``git diff --cc`` shows), so edits of different lines of one function
combined cleanly beside a conflict elsewhere in the file are not the merge's. Octopus
merges and merges without a merge base use the parents only, the same way.

* Lineage: a definition whose own text in the merge equals its text in a parent that
  lacks the path, in a source file that parent has and the merge does not (the branch
  edited it where it was before the other branch moved it, and the merge ported the edit
  across the move), is that branch's change, not the merge's.

* A path whose state in the merge (blob and mode, or absence) equals its state in ANY
  parent (or in the re-merge) contributes nothing. Only paths that differ from every
  parent are examined, and only those differing from the first parent need a look at all
  (a tree diff without patches finds them).
* Source files a language row reads: an entity counts as changed only when its own text in
  the merge matches its text in no parent (a conflict resolution, an "evil" edit). It is
  ``added`` when no parent has it, ``removed`` when every parent has it and the merge
  does not, else ``modified``. The file event is recorded when one of its entities is.
* Other files (and source that cannot be read): the file event is recorded when some line
  of the merge result differs from every parent, as ``git diff --cc`` would show it.
  Binary files, symlinks and submodule pointers that differ from every parent count.
* File event kinds are relative to the first parent (absent there: ``added``).
"""

from __future__ import annotations

from functools import partial

import pygit2
from pygit2.enums import DeltaStatus, DiffOption

from warpline.git.diffmap import PySide, file_event, whole_texts
from warpline.git.events import ChangeKind, EntityChange
from warpline.git.parsecache import (
    NOT_READ,
    DefinitionCache,
    SideResult,
    TreeFiles,
    TreeState,
    blob_data,
    is_regular_file,
    side_result,
    source_of,
    tree_state,
)
from warpline.lang.entities import EntityKey, FileEntities, split_lines

__all__ = ["merge_changes"]

State = TreeState
Interval = tuple[int, int]


class _Remerge:
    """The automatic re-merge of a two-parent merge, computed on first use."""

    def __init__(self, repo: pygit2.Repository, commit: pygit2.Commit) -> None:
        self._repo = repo
        self._commit = commit
        self._index: pygit2.Index | None = None
        self._conflicted: set[str] = set()
        self._failed = len(commit.parent_ids) != 2

    def _load(self) -> pygit2.Index | None:
        if self._index is None and not self._failed:
            ours, theirs = self._commit.parents
            try:
                base_id = self._repo.merge_base(ours.id, theirs.id)
                if base_id is None:
                    self._failed = True
                    return None
                base = self._repo[base_id].peel(pygit2.Commit)
                index = self._repo.merge_trees(base.tree, ours.tree, theirs.tree)
            except (pygit2.GitError, KeyError, ValueError):
                self._failed = True
                return None
            conflicts = index.conflicts
            if conflicts is not None:
                for entries in conflicts:
                    self._conflicted.update(e.path for e in entries if e is not None)
            self._index = index
        return self._index

    def state(self, path: str) -> tuple[bool, State]:
        """(known, state): known False when there is no re-merge or it conflicted here."""
        index = self._load()
        if index is None or path in self._conflicted:
            return False, None
        try:
            entry = index[path]
        except KeyError:
            return True, None  # the re-merge has no file there
        return True, (entry.id, entry.mode)


def merge_changes(
    repo: pygit2.Repository, commit: pygit2.Commit, cache: DefinitionCache
) -> tuple[list[EntityChange], list[str]]:
    trees = [parent.tree for parent in commit.parents]
    diff = trees[0].diff_to_tree(commit.tree, DiffOption.INCLUDE_TYPECHANGE, 0, 0)
    out: list[EntityChange] = []
    unparsed: list[str] = []
    remerge = _Remerge(repo, commit)
    _carried = _Carried(repo, cache, commit)
    # Module names (a Rust file's crate) are read from the merge's own tree for every side.
    files = TreeFiles(repo, commit.tree)
    for delta in diff.deltas:
        removed = delta.status == DeltaStatus.DELETED
        path = delta.old_file.path if removed else delta.new_file.path
        result: State = None if removed else (delta.new_file.id, delta.new_file.mode)
        first: State = (
            None if delta.status == DeltaStatus.ADDED else (delta.old_file.id, delta.old_file.mode)
        )
        states = [first, *(tree_state(tree, path) for tree in trees[1:])]
        if result in states:
            continue
        # What git's clean automatic re-merge of the parents gives here is nothing of the
        # merge's own (DESIGN §4), whatever the versions' contents: asked first, it spares
        # parsing every path the merge combined cleanly (about half of merge time).
        known, again = remerge.state(path)
        if known and again == result:
            continue
        kind: ChangeKind = "added" if first is None else "removed" if removed else "modified"
        found: list[EntityChange] = []
        unread: list[str] = []
        memo: _Memo = {}
        _contribution(repo, cache, files, memo, path, kind, result, states, found, unread)
        if found:
            # The re-merge as one more parent only takes events away: judged with it only
            # when the parents alone leave some.
            if known:
                found, unread = [], []
                _contribution(repo, cache, files, memo, path, kind, result, [*states, again],
                              found, unread)
            else:
                found = _own_lines_only(repo, cache, files, path, result, states, found)
        if found and None in states:
            found = _carried.drop(path, result, states, found)
        out.extend(found)
        unparsed.extend(unread)
    return out, unparsed


def _side(repo: pygit2.Repository, cache: DefinitionCache, files: TreeFiles, path: str,
          state: State, near: State = None) -> SideResult:
    """One version of ``path``; derived from the cached parse of ``near`` (the first
    parent's version) when there is one, which re-parses only what differs."""
    if state is None:
        return NOT_READ
    oid, mode = state
    src = source_of(path, mode, files)
    if src is None:
        return NOT_READ
    base = near[0] if near is not None and is_regular_file(near[1]) else None
    load_base = partial(blob_data, repo, base) if base is not None else bytes
    return side_result(path, src[1],
                       cache.get_near(oid, partial(blob_data, repo, oid), base, load_base,
                                      src[0]))


def _contribution(
    repo: pygit2.Repository,
    cache: DefinitionCache,
    files: TreeFiles,
    memo: _Memo,
    path: str,
    kind: ChangeKind,
    result: State,
    states: list[State],
    out: list[EntityChange],
    unparsed: list[str],
) -> None:
    parents = [_side(repo, cache, files, path, state, states[0]) for state in states]
    merged = _side(repo, cache, files, path, result, states[0])
    if merged.side is not None and result is not None:
        cache.remember(path, result[0])
    if merged.unparsed or any(p.unparsed for p in parents):
        unparsed.append(path)
    elif merged.side is not None or any(p.side is not None for p in parents):
        events = _entity_events(
            _texts(repo, memo, merged.side, result),
            [_texts(repo, memo, p.side, state)
             for p, state in zip(parents, states, strict=True)],
        )
        if events:
            out.append(file_event(kind, path, None))
            out.extend(events)
        return
    if _lines_differ_from_every_parent(repo, result, states):
        out.append(file_event(kind, path, None))


Texts = tuple[PySide, dict[EntityKey, list[bytes]]] | None
# One path's entity texts by blob (and the parse they were read with): a blob that is two
# parents' version, or seen again in the pass with the re-merge, is read once.
_Memo = dict[tuple[bytes, int], tuple[FileEntities, dict[EntityKey, list[bytes]]]]


def _entity_events_only(found: list[EntityChange]) -> list[EntityChange]:
    """``found`` without its file event when no entity event is left."""
    return found if any(c.kind != "file" for c in found) else []


def _own_lines_only(
    repo: pygit2.Repository, cache: DefinitionCache, files: TreeFiles, path: str,
    result: State, states: list[State], found: list[EntityChange],
) -> list[EntityChange]:
    """No re-merge to judge by here (it conflicted on this path, or there is none): an
    entity ``modified`` by the merge counts only when one of its own lines differs from
    every parent, as ``git diff --cc`` shows it; the branches' edits of different lines of
    one function, combined cleanly beside a conflict elsewhere in the file, are not the
    merge's own change."""
    modified = [c for c in found if c.change_kind == "modified" and c.kind != "file"]
    if not modified:
        return found
    common = _common_touched(repo, result, states)
    if common is None:
        return found  # some parent differs everywhere: nothing narrows it down
    merged = _side(repo, cache, files, path, result, states[0]).side
    if merged is None:
        return found
    own = {merged.locator(e.key): e.own for e in merged.entities.entities}
    drop = {c.locator for c in modified if not any(
        _overlaps(common, (2 * first, 2 * last + 1)) for first, last in own.get(c.locator, ()))}
    if not drop:
        return found
    return _entity_events_only([c for c in found if c.locator not in drop or c.kind == "file"])


def _overlaps(intervals: list[Interval], probe: Interval) -> bool:
    return any(low <= probe[1] and probe[0] <= high for low, high in intervals)


class _Carried:
    """A merge carrying a branch's version of a definition across a move the other branch
    made (``pip/req.py`` edited on a maintenance branch, split into ``pip/req/`` on the
    main line, the edit ported by hand in the merge): the definition's own text in the
    merge equals its text in that parent under its old path, so it is the branch's
    change, not the merge's (DESIGN §4: changes that match no parent). Looked up only for
    paths some parent lacks, in the source files that parent has and the merge does not
    (one tree diff per parent, on first use)."""

    def __init__(self, repo: pygit2.Repository, cache: DefinitionCache,
                 commit: pygit2.Commit) -> None:
        self._repo, self._cache, self._commit = repo, cache, commit
        self._texts: dict[int, set[tuple[str, tuple[bytes, ...]]]] = {}
        self._memo: _Memo = {}

    def _elsewhere(self, index: int) -> set[tuple[str, tuple[bytes, ...]]]:
        if index not in self._texts:
            found: set[tuple[str, tuple[bytes, ...]]] = set()
            parent = self._commit.parents[index]
            for delta in parent.tree.diff_to_tree(self._commit.tree).deltas:
                if delta.status != DeltaStatus.DELETED:
                    continue
                old = delta.old_file
                state: State = (old.id, old.mode)
                side = _side(self._repo, self._cache, TreeFiles(self._repo, parent.tree),
                             old.path, state).side
                texts = _texts(self._repo, self._memo, side, state)
                if texts is not None:
                    found.update((key[0], tuple(text)) for key, text in texts[1].items()
                                 if key[1])
            self._texts[index] = found
        return self._texts[index]

    def drop(self, path: str, result: State, states: list[State],
             found: list[EntityChange]) -> list[EntityChange]:
        near = _side(self._repo, self._cache, TreeFiles(self._repo, self._commit.tree), path,
                     result, states[0]).side
        merged = _texts(self._repo, self._memo, near, result)
        if merged is None:
            return found
        side, texts = merged
        by_locator = {side.locator(key): (key[0], tuple(text)) for key, text in texts.items()}
        lacking = [i for i, state in enumerate(states) if state is None]
        carried = {c.locator for c in found
                   if c.kind != "file" and c.change_kind in ("modified", "added")
                   and c.locator in by_locator
                   and any(by_locator[c.locator] in self._elsewhere(i) for i in lacking)}
        if not carried:
            return found
        return _entity_events_only([c for c in found if c.locator not in carried])


def _texts(repo: pygit2.Repository, memo: _Memo, side: PySide | None, state: State) -> Texts:
    if side is None or state is None:
        return None
    fe = side.entities
    key = (state[0].raw, id(fe))
    kept = memo.get(key)
    if kept is None:
        # The parse is held with its texts, so its id cannot be reused within the merge.
        kept = memo[key] = (fe, whole_texts(fe, split_lines(blob_data(repo, state[0]))))
    return side, kept[1]


def _entity_events(merged: Texts, parents: list[Texts]) -> list[EntityChange]:
    events: list[EntityChange] = []
    if merged is not None:
        side, texts = merged
        for key, text in texts.items():
            seen = [t[key] for _, t in filter(None, parents) if key in t]
            if seen and text in seen:
                continue
            change: ChangeKind = "modified" if seen else "added"
            events.append(EntityChange(side.locator(key), side.kind(key), change, side.path))
    present = [p for p in parents if p is not None]
    if not present or len(present) != len(parents):
        return events  # some parent lacks the file: its absence matches that parent
    merged_keys = merged[1].keys() if merged is not None else set()
    common = set.intersection(*(set(t) for _, t in present))
    side = present[0][0]
    for key in sorted(common - merged_keys):
        events.append(EntityChange(side.locator(key), side.kind(key), "removed", side.path))
    return events


def _lines_differ_from_every_parent(
    repo: pygit2.Repository, result: State, states: list[State]
) -> bool:
    """True when some line (or gap) of the merge result is changed against every parent.

    Positions use doubled coordinates: line L is ``2L``, the gap after it ``2L + 1``.
    """
    common = _common_touched(repo, result, states)
    return common is None or bool(common)


def _common_touched(repo: pygit2.Repository, result: State,
                    states: list[State]) -> list[Interval] | None:
    """The lines (and gaps) of the merge result changed against every parent; None when
    every parent differs everywhere (absent, binary)."""
    common: list[Interval] | None = None  # None: "everywhere", nothing ruled out yet
    for state in states:
        touched = _touched(repo, result, state)
        if touched is None:
            continue  # everything differs from this parent: no constraint
        common = touched if common is None else _intersect(common, touched)
        if not common:
            return []
    return common


def _touched(repo: pygit2.Repository, result: State, state: State) -> list[Interval] | None:
    if result is None or state is None:
        return None
    if not (is_regular_file(result[1]) and is_regular_file(state[1])):
        return None
    old, new = repo[state[0]], repo[result[0]]
    assert isinstance(old, pygit2.Blob) and isinstance(new, pygit2.Blob)
    patch = pygit2.Patch.create_from(
        old, new, flag=DiffOption.INDENT_HEURISTIC, context_lines=0, interhunk_lines=0
    )
    if patch.delta.is_binary or not patch.hunks:
        return None  # binary (or mode-only) difference: nothing narrows it down
    out: list[Interval] = []
    for h in patch.hunks:
        if h.new_lines:
            out.append((2 * h.new_start, 2 * (h.new_start + h.new_lines - 1)))
        else:
            out.append((2 * h.new_start + 1, 2 * h.new_start + 1))
    return out


def _intersect(a: list[Interval], b: list[Interval]) -> list[Interval]:
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if low <= high:
            out.append((low, high))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out
