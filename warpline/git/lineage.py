"""Lineage within one commit: a removed definition and an added one that are the same
definition renamed or moved become one ``moved`` event (DESIGN §3, Lineage).

The rule (thresholds measured on real histories, see ``bench/bench_lineage.py``):

* Candidates are the classes and functions a commit removed and added (any files, any
  classes). Modules and files are paired by git's own rename detection, not here. A pair
  is of one kind; in the last round of one family: any two functions (a function, a
  method, a constructor: code that becomes a class's method keeps its history).
* A definition's *text* is its whole span (decorators, signature, body, nested
  definitions), each line stripped, blank and comment-only lines dropped, and every
  occurrence of its own name replaced by a placeholder (so a renamed recursive call or a
  ``super(Name, self)`` still matches).
* The score of a pair is ``difflib``'s ratio of the two texts as line sequences; a pair
  renamed within its file that falls short is scored once more with each parameter name
  replaced by its position (a rename that renames the parameters too).
  A pair keeping its name (a move to another module or class) needs ``SAME_NAME_MIN``
  (dunder names, shared by unrelated classes, count as renamed); a renamed pair needs
  ``RENAME_MIN`` (``SHORT_RENAME_MIN`` below ``SHORT_TEXT_LINES`` lines, where one line is
  a large share of the ratio) and at least ``RENAME_MIN_LINES`` text lines
  (tiny bodies such as ``pass`` or ``return None`` say nothing about identity; lines of
  brackets alone, a brace language's ``}``, do not count), unless it stayed in its file
  with its text otherwise identical.
* Assignment is greedy, best score first (a pair within one file ranked
  ``SAME_FILE_BONUS`` higher), one-to-one; ties prefer the same name, then the same file,
  then locator order. Top-level candidates (those whose enclosing definition
  was not itself removed/added) are paired first; when a pair has nested definitions, the
  nested ones with the same relative qualname pair with each other (a class rename carries
  its methods). What is left is scored once more (a method renamed inside a renamed class),
  by family: a function that became a class's method or constructor pairs there.
* A function split in two keeps its lineage in the half most similar to it; the other half
  is ``added``.
* ``also_modified`` says the definition's own text changed too (own lines, name replaced,
  comments kept): a moved-and-edited definition is distinguishable from a moved-only one.

The work is bounded: every removed/added pair is scored only when there are at most
``MAX_COMPARISONS`` of them in one round; past that, only exact text matches and pairs
keeping their name are looked up (by hashing), and when definitions stay unpaired the
commit says so (``limit_hit``). Exact texts are paired group by group in linear time
(``_pair_exact``), and the same-name lookups stop at ``_NAME_STEPS`` pairs looked at or
``_NAME_COMPARISONS`` scored: a commit moving 20,000 identical files past git's rename
limit ranked every pair of them (400 million) and never finished.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from warpline.git.absorbed import absorbed
from warpline.git.candidates import Candidate, candidates, parent_of
from warpline.git.deftext import (
    MAX_COMPARISONS,
    RENAME_MIN,
    RENAME_MIN_LINES,
    SAME_NAME_MIN,
    SHORT_RENAME_MIN,
    SHORT_TEXT_LINES,
    SideIndex,
    Text,
    score,
)
from warpline.git.events import EntityChange
from warpline.git.lineage_ordinals import follow_ordinals
from warpline.git.pairscore import (
    crossed,
    positional,
    quick_ratio,
    renamed_locals,
    shape_ratio,
)
from warpline.git.renameaway import renamed_away

__all__ = [
    "MAX_COMPARISONS",
    "RENAME_MIN",
    "RENAME_MIN_LINES",
    "SAME_NAME_MIN",
    "SHORT_RENAME_MIN",
    "SHORT_TEXT_LINES",
    "Candidate",
    "SideIndex",
    "pair_definitions",
    "score",
]

# Above this many pairs, an exact-text group is paired by buckets (``_pair_exact``).
_SMALL_GROUP = 4096
# Past the budget, what the same-name lookups may still cost in one round: pairs looked
# at, and pairs scored. Thousands of definitions sharing a name (``test``, ``Meta``) in a
# commit past the rename limit would otherwise cost their product.
_NAME_STEPS = 1_000_000
_NAME_COMPARISONS = 4 * MAX_COMPARISONS

# Diagnostics for bench/bench_lineage.py: when a list, every scored pair is appended as
# (score, old locator, new locator, same name); None (the default) records nothing.
TRACE: list[tuple[float, str, str, bool]] | None = None


@dataclass(slots=True)
class _Pairing:
    """The pairs found so far, the comparisons made, and whether the limit stopped them."""
    pairs: list[tuple[Candidate, Candidate]] = field(default_factory=list)
    comparisons: int = 0
    limit_hit: bool = False


def _distinct_name(old: Candidate, new: Candidate) -> bool:
    """Kept a name that says something: dunders (``__init__``, ``__repr__``) are shared by
    unrelated classes, so they count as a rename."""
    return old.name == new.name and not (old.name.startswith(b"__")
                                         and old.name.endswith(b"__"))


def _eligible(old: Candidate, new: Candidate, value: float) -> bool:
    if _distinct_name(old, new):
        return value >= SAME_NAME_MIN
    if value == 1.0 and old.change.path == new.change.path:
        return True  # renamed in place, text otherwise identical (however short)
    if min(old.substantive(), new.substantive()) < RENAME_MIN_LINES:
        return False
    shorter = min(len(old.text), len(new.text))
    return value >= (SHORT_RENAME_MIN if shorter < SHORT_TEXT_LINES else RENAME_MIN)


def _greedy(olds: list[Candidate], news: list[Candidate], state: _Pairing,
            kind: Callable[[Candidate], str] = lambda c: c.family) -> None:
    """Pair ``olds`` with ``news`` (the same ``kind``), best first, one-to-one.

    Exact texts and same names are looked up by hashing; every other pair costs one step
    of the budget, and past it only those lookups remain (``limit_hit``), the same-name
    comparisons themselves bounded by the budget too."""
    by_text: dict[tuple[str, Text], list[int]] = {}
    by_name: dict[tuple[str, bytes], list[int]] = {}
    for j, new in enumerate(news):
        by_text.setdefault((kind(new), new.text), []).append(j)
        by_name.setdefault((kind(new), new.name), []).append(j)
    used_old: set[int] = set()
    used_new: set[int] = set()
    # Exact texts score 1.0, above any other pair, and each definition has one text:
    # each group of equal texts is paired on its own, before everything else.
    groups: dict[tuple[str, Text], list[int]] = {}
    for i, old in enumerate(olds):
        if (kind(old), old.text) in by_text:
            groups.setdefault((kind(old), old.text), []).append(i)
    for text_key, group in groups.items():
        _pair_exact(olds, group, news, by_text[text_key], used_old, used_new, state)
    open_budget = len(olds) * len(news) <= MAX_COMPARISONS
    spent, steps = state.comparisons, 0
    scored: list[tuple[float, int, int, str, str, int, int]] = []
    for i, old in enumerate(olds):
        if i in used_old:
            continue
        if open_budget:
            others: list[int] | range = range(len(news))
        else:
            others = by_name.get((kind(old), old.name), [])
            if len(others) > len(news) // 2:
                others = []
            steps += len(others)
            if steps > _NAME_STEPS or state.comparisons - spent >= _NAME_COMPARISONS:
                break  # thousands sharing a name: the rest is left unpaired (limit_hit)
        for j in others:
            new = news[j]
            if j in used_new or kind(new) != kind(old) or new.text == old.text:
                continue  # paired by its exact text already, or another kind
            value = _compare(old, new, state)
            if value is not None and _eligible(old, new, value):
                scored.append(_ranked(value, old, new, i, j))
    scored.sort(key=lambda s: (-s[0], s[1], s[2], s[3], s[4]))
    for *_, i, j in scored:
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        state.pairs.append((olds[i], news[j]))
    if not open_budget and len(used_old) < len(olds) and len(used_new) < len(news):
        state.limit_hit = True  # pairs beyond the budget were not looked for


def _pair_exact(olds: list[Candidate], group: list[int], news: list[Candidate],
                matches: list[int], used_old: set[int], used_new: set[int],
                state: _Pairing) -> None:
    """Pair definitions of one exact text in the order scoring every pair would (same
    name and file first, then same name, then same file, then any; locator order within),
    in linear time: a commit renaming thousands of identical files (generated code, empty
    ``__init__``s) would otherwise rank every pair of them.

    Once the same-name-and-file pairs are taken, no old and new left share both, so each
    later stage is one pass over buckets (a name, a file, everything)."""
    if len(group) * len(matches) <= _SMALL_GROUP:  # the plain greedy, cheap at this size
        ranked = sorted((_ranked(1.0, olds[i], news[j], i, j) for i in group for j in matches
                         if _eligible(olds[i], news[j], 1.0)), key=lambda s: (-s[0], s[1:]))
        for *_, i, j in ranked:
            if i not in used_old and j not in used_new:
                used_old.add(i)
                used_new.add(j)
                state.pairs.append((olds[i], news[j]))
        return
    stages: tuple[Callable[[Candidate], object], ...] = (
        lambda c: (c.name, c.change.path), lambda c: c.name, lambda c: c.change.path,
        lambda c: None)
    old_order = sorted(group, key=lambda i: (olds[i].change.locator, i))
    new_order = sorted(matches, key=lambda j: (news[j].change.locator, j))
    for bucket in stages:
        waiting: dict[object, list[int]] = {}
        for j in new_order:
            if j not in used_new:
                waiting.setdefault(bucket(news[j]), []).append(j)
        taken: dict[object, int] = {}
        for i in old_order:
            if i in used_old:
                continue
            key = bucket(olds[i])
            found = waiting.get(key)
            if not found:
                continue
            at = taken.get(key, 0)
            # Equal texts, and a bucket shares what ``_eligible`` looks at (same name or
            # not, same file or not, the text's length): its first pair speaks for all.
            if at < len(found) and _eligible(olds[i], news[found[at]], 1.0):
                j = found[at]
                taken[key] = at + 1
                used_old.add(i)
                used_new.add(j)
                state.pairs.append((olds[i], news[j]))


def _compare(old: Candidate, new: Candidate, state: _Pairing) -> float | None:
    """The score of a pair, or None when it cannot reach its threshold: its code's
    (``_code_score``), or, where comment lines were left out and that falls short, its
    texts' with them (comments both versions share are evidence of identity; comments
    added or removed no longer count against it: junit4 1273a356, a stub method whose
    Javadoc stayed while its signature changed, 0.71 with them, 0.40 without)."""
    value = _code_score(old, new, state)
    if old.full is None and new.full is None:
        return value
    bound = SAME_NAME_MIN if _distinct_name(old, new) else RENAME_MIN
    if value is not None and value >= bound:
        return value
    matcher = SequenceMatcher(None, old.full or old.text, new.full or new.text,
                              autojunk=False)
    if TRACE is None and matcher.quick_ratio() < bound:
        return value
    return max(value or 0.0, matcher.ratio())


def _code_score(old: Candidate, new: Candidate, state: _Pairing) -> float | None:
    """The score of a pair's code texts, or None when it cannot reach its threshold."""
    same = _distinct_name(old, new)
    bound = SAME_NAME_MIN if same else RENAME_MIN
    shorter = min(len(old.text), len(new.text))
    if not same and min(old.substantive(), new.substantive()) < RENAME_MIN_LINES:
        return None
    total = len(old.text) + len(new.text)
    if total == 0 or 2 * shorter / total < bound:
        return None  # the length ratio already rules it out
    state.comparisons += 1
    # A renamed pair whose texts name each other's names (the body calls an overload of
    # the old name: ``toString(T)`` -> ``anyToString`` calling ``toString(Number)``) is
    # compared with both names replaced on both sides, as each side's own name is.
    texts = None if same or old.name == new.name else crossed(old, new)
    # Renamed in place with its parameters renamed too (``requote_path(path)`` ->
    # ``requote_uri(uri)``): every line naming a parameter differs, so such a pair is
    # compared once more with each parameter replaced by its position (gated by the
    # cheap bound like the first comparison).
    in_place = not same and old.change.path == new.change.path
    by_position = False
    if texts is not None:
        matcher = SequenceMatcher(None, *texts, autojunk=False)
        if TRACE is None and matcher.quick_ratio() < bound and not in_place:
            return None
    elif TRACE is None and quick_ratio(old, new, total) < bound:
        if not in_place:
            return None
        matcher = SequenceMatcher(None, positional(old), positional(new), autojunk=False)
        if matcher.quick_ratio() < bound:
            return _locals_renamed(old, new, bound, state)
        by_position = True
    else:
        matcher = SequenceMatcher(None, old.text, new.text, autojunk=False)
    value = matcher.ratio()
    if value < bound and in_place and not by_position:
        value = max(value, score(positional(old), positional(new)))
    if value < bound and in_place:
        value = max(value, _locals_renamed(old, new, bound, state) or 0.0)
    if TRACE is not None:
        TRACE.append((value, old.change.locator, new.change.locator, same))
    return value


def _locals_renamed(old: Candidate, new: Candidate, bound: float,
                    state: _Pairing) -> float | None:
    """A pair renamed in place that renamed a local on every line too (``rows`` ->
    ``records``): scored with the old text's locals renamed as the new one renames them
    (``pairscore.renamed_locals``); None when no such rename is seen. Cheaply bounded
    first: the lines' shapes (identifiers blanked) must be alike."""
    if shape_ratio(old.text, new.text) < bound:
        return None
    text = renamed_locals(old.text, new.text)
    return None if text is None else score(text, new.text)


# A pair within one file ranks as if it scored this much more: a definition that stays
# in its file (a signature change, a rename in place) is likelier than a look-alike moving
# across files (junit4 f0ef837: ``Invoke.run``'s new signature was paired with
# ``Notifying.run``'s old one, a little more alike, and ``Invoke.run`` left removed).
SAME_FILE_BONUS = 0.1


def _ranked(value: float, old: Candidate, new: Candidate, i: int,
            j: int) -> tuple[float, int, int, str, str, int, int]:
    same_file = old.change.path == new.change.path
    return (round(value + (SAME_FILE_BONUS if same_file else 0.0), 6),
            0 if old.name == new.name else 1, 0 if same_file else 1, old.change.locator,
            new.change.locator, i, j)


def _roots(cands: list[Candidate]) -> list[Candidate]:
    present = {(c.change.path, c.qualname) for c in cands}
    return [c for c in cands if (c.change.path, parent_of(c.qualname)) not in present]


def _nested(cands: list[Candidate]) -> dict[tuple[str, str], list[Candidate]]:
    """Each candidate's nested candidates (any depth), by (path, qualname)."""
    present = {(c.change.path, c.qualname) for c in cands}
    out: dict[tuple[str, str], list[Candidate]] = {}
    for c in cands:
        parent = parent_of(c.qualname)
        while parent is not None:
            if (c.change.path, parent) in present:
                out.setdefault((c.change.path, parent), []).append(c)
            parent = parent_of(parent)
    return out


def _carry(old: Candidate, new: Candidate, nested_old: dict[tuple[str, str], list[Candidate]],
           nested_new: dict[tuple[str, str], list[Candidate]], state: _Pairing,
           paired: set[int]) -> None:
    """Nested definitions of a pair with the same relative qualname pair with each other."""
    prefix_old, prefix_new = len(old.qualname) + 1, len(new.qualname) + 1
    inner_new = {(c.family, c.qualname[prefix_new:]): c
                 for c in nested_new.get((new.change.path, new.qualname), [])
                 if id(c) not in paired}
    for child in nested_old.get((old.change.path, old.qualname), []):
        if id(child) in paired:
            continue
        match = inner_new.pop((child.family, child.qualname[prefix_old:]), None)
        if match is not None:
            paired.update((id(child), id(match)))
            state.pairs.append((child, match))


def pair_definitions(changes: list[EntityChange], sides: SideIndex) -> tuple[
        list[EntityChange], bool]:
    """Replace paired ``removed``/``added`` definitions in ``changes`` by ``moved`` events
    (then a wrapper that absorbed the body it called, ``absorbed``). Returns the new list
    and whether the comparison bound was hit."""
    out, limit_hit = _pair_removed_added(follow_ordinals(changes, sides), sides)
    return absorbed(out, sides), limit_hit


def _pair_removed_added(changes: list[EntityChange], sides: SideIndex) -> tuple[
        list[EntityChange], bool]:
    added_locators = {c.locator for c in changes if c.change_kind == "added"}
    removed = [c for c in changes if c.change_kind == "removed"
               and c.kind in ("class", "function") and c.locator not in added_locators]
    removed_locators = {c.locator for c in removed}
    added = [c for c in changes if c.change_kind == "added"
             and c.kind in ("class", "function") and c.locator not in removed_locators]
    if not added:
        return changes, False
    if not removed:
        return renamed_away(changes, added, sides), False
    olds = candidates(removed, sides.old)
    news = candidates(added, sides.new)
    state = _Pairing()
    # Top-level pairs keep their own kind: a nested function that moved into a new
    # class's method pairs with its namesake there, not with the method around it.
    _greedy(_roots(olds), _roots(news), state, lambda c: c.key[0])
    paired: set[int] = {id(c) for pair in state.pairs for c in pair}
    nested_old, nested_new = _nested(olds), _nested(news)
    for old, new in list(state.pairs):
        _carry(old, new, nested_old, nested_new, state, paired)
    paired = {id(c) for pair in state.pairs for c in pair}
    _greedy([c for c in olds if id(c) not in paired], [c for c in news if id(c) not in paired],
            state)
    if not state.pairs:
        return changes, state.limit_hit
    replaced: set[int] = set()
    moved: list[EntityChange] = []
    for old, new in state.pairs:
        replaced.update((id(old.change), id(new.change)))
        moved.append(replace(new.change, change_kind="moved",
                             previous_locator=old.change.locator,
                             previous_path=old.change.path, also_modified=old.own != new.own))
    kept = [c for c in changes if id(c) not in replaced]
    left = [c for c in added if id(c) not in replaced]
    out = kept + moved
    return (renamed_away(out, left, sides) if left else out), state.limit_hit
