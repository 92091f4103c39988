"""Lineage within one commit: a removed definition and an added one that are the same
definition renamed or moved become one ``moved`` event (DESIGN §3, Lineage).

The rule (thresholds measured on real histories, see ``bench/bench_lineage.py``):

* Candidates are the classes and functions a commit removed and added (any files, any
  classes). Modules and files are paired by git's own rename detection, not here.
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
  (tiny bodies such as ``pass`` or ``return None`` say nothing about identity), unless it
  stayed in its file with its text otherwise identical.
* Assignment is greedy, best score first, one-to-one; ties prefer the same name, then the
  same file, then locator order. Top-level candidates (those whose enclosing definition
  was not itself removed/added) are paired first; when a pair has nested definitions, the
  nested ones with the same relative qualname pair with each other (a class rename carries
  its methods). What is left is scored once more (a method renamed inside a renamed class).
* A function split in two keeps its lineage in the half most similar to it; the other half
  is ``added``.
* ``also_modified`` says the definition's own text changed too (own lines, name replaced,
  comments kept): a moved-and-edited definition is distinguishable from a moved-only one.

The work is bounded: every removed/added pair is scored only when there are at most
``MAX_COMPARISONS`` of them in one round; past that, only exact text matches and pairs
keeping their name are looked up (by hashing), and when definitions stay unpaired the
commit says so (``limit_hit``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from warpline.git.diffmap import PySide, definition_spans
from warpline.git.events import EntityChange
from warpline.git.pyentities import Entity, EntityKey

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

SAME_NAME_MIN = 0.5
RENAME_MIN = 0.6
RENAME_MIN_LINES = 3
SHORT_TEXT_LINES = 6
SHORT_RENAME_MIN = 0.8
MAX_COMPARISONS = 40_000

# Diagnostics for bench/bench_lineage.py: when a list, every scored pair is appended as
# (score, old locator, new locator, same name); None (the default) records nothing.
TRACE: list[tuple[float, str, str, bool]] | None = None

_PLACEHOLDER = b"\x00"
Text = tuple[bytes, ...]


@dataclass(slots=True)
class SideIndex:
    """The parsed sides one commit's diff saw, by path: old (before) and new (after),
    with a loader for each blob's lines (read only when pairing needs them)."""

    old: dict[str, tuple[PySide, Callable[[], list[bytes]]]] = field(default_factory=dict)
    new: dict[str, tuple[PySide, Callable[[], list[bytes]]]] = field(default_factory=dict)


@dataclass(slots=True)
class Candidate:
    change: EntityChange
    key: EntityKey
    name: bytes
    text: Text
    own: Text
    positional: Text | None = None  # ``text`` with parameters by position (lazily)

    @property
    def qualname(self) -> str:
        return self.key[1]


def _leaf(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def _parent(qualname: str) -> str | None:
    if "." not in qualname:
        return None
    head = qualname.rsplit(".", 1)[0]
    return head[: -len(".<locals>")] if head.endswith(".<locals>") else head


_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _replace_name(text: bytes, name: bytes, placeholder: bytes = _PLACEHOLDER) -> bytes:
    """``text`` with every whole-word occurrence of ``name`` replaced by ``placeholder``."""
    at = text.find(name)
    if at < 0:
        return text
    out: list[bytes] = []
    start, size = 0, len(name)
    while at >= 0:
        end = at + size
        if (at == 0 or text[at - 1] not in _WORD) and (end == len(text)
                                                         or text[end] not in _WORD):
            out.append(text[start:at])
            out.append(placeholder)
            start = end
        at = text.find(name, end)
    out.append(text[start:])
    return b"".join(out)


def _normal(lines: list[bytes], name: bytes, keep_comments: bool) -> Text:
    out: list[bytes] = []
    for line in lines:
        text = line.strip()
        if not text or (not keep_comments and text.startswith(b"#")):
            continue
        out.append(_replace_name(text, name))
    return tuple(out)


def _span_lines(lines: list[bytes], spans: tuple[tuple[int, int], ...]) -> list[bytes]:
    out: list[bytes] = []
    for first, last in spans:
        out.extend(lines[first - 1 : last])
    return out


def score(a: Text, b: Text) -> float:
    """Similarity of two normalised texts, 0..1."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _candidates(
    changes: list[EntityChange], sides: dict[str, tuple[PySide, Callable[[], list[bytes]]]]
) -> list[Candidate]:
    out: list[Candidate] = []
    loaded: dict[str, tuple[list[bytes], dict[EntityKey, Entity]]] = {}
    for change in changes:
        found = sides.get(change.path)
        if found is None:
            continue
        side, load = found
        qualname = change.locator[len(f"python:{change.kind}:{side.dotted}.") :]
        key: EntityKey = (change.kind, qualname)  # type: ignore[assignment]
        if change.path not in loaded:
            loaded[change.path] = (load(), {e.key: e for e in side.entities.entities})
        lines, by_key = loaded[change.path]
        entity = by_key.get(key)
        if entity is None:
            continue
        name = _leaf(qualname).encode()
        out.append(Candidate(change, key, name,
                             _normal(_span_lines(lines, entity.spans), name, False),
                             _normal(_span_lines(lines, entity.own), name, True)))
    return out


@dataclass(slots=True)
class _Pairing:
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
    shorter = min(len(old.text), len(new.text))
    if shorter < RENAME_MIN_LINES:
        return False
    return value >= (SHORT_RENAME_MIN if shorter < SHORT_TEXT_LINES else RENAME_MIN)


def _greedy(olds: list[Candidate], news: list[Candidate], state: _Pairing) -> None:
    """Pair ``olds`` with ``news`` (same kind), best first, one-to-one.

    Exact texts and same names are looked up by hashing; every other pair costs one step
    of the budget, and past it only those lookups remain (``limit_hit``)."""
    scored: list[tuple[float, int, int, str, str, int, int]] = []
    by_text: dict[tuple[str, Text], list[int]] = {}
    by_name: dict[tuple[str, bytes], list[int]] = {}
    for j, new in enumerate(news):
        by_text.setdefault((new.key[0], new.text), []).append(j)
        by_name.setdefault((new.key[0], new.name), []).append(j)
    open_budget = len(olds) * len(news) <= MAX_COMPARISONS
    for i, old in enumerate(olds):
        exact = by_text.get((old.key[0], old.text), [])
        for j in exact:
            if _eligible(old, news[j], 1.0):
                scored.append(_ranked(1.0, old, news[j], i, j))
        if open_budget:
            others: list[int] | range = range(len(news))
        else:
            others = by_name.get((old.key[0], old.name), [])
            if len(others) > len(news) // 2:
                others = []
        for j in others:
            new = news[j]
            if new.key[0] != old.key[0] or j in exact:
                continue
            value = _compare(old, new, state)
            if value is not None and _eligible(old, new, value):
                scored.append(_ranked(value, old, new, i, j))
    scored.sort(key=lambda s: (-s[0], s[1], s[2], s[3], s[4]))
    used_old: set[int] = set()
    used_new: set[int] = set()
    for *_, i, j in scored:
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        state.pairs.append((olds[i], news[j]))
    if not open_budget and len(used_old) < len(olds) and len(used_new) < len(news):
        state.limit_hit = True  # pairs beyond the budget were not looked for


def _compare(old: Candidate, new: Candidate, state: _Pairing) -> float | None:
    """The score of a pair, or None when it cannot reach its threshold."""
    same = _distinct_name(old, new)
    bound = SAME_NAME_MIN if same else RENAME_MIN
    shorter = min(len(old.text), len(new.text))
    if not same and shorter < RENAME_MIN_LINES:
        return None
    total = len(old.text) + len(new.text)
    if total == 0 or 2 * shorter / total < bound:
        return None  # the length ratio already rules it out
    state.comparisons += 1
    matcher = SequenceMatcher(None, old.text, new.text, autojunk=False)
    # Renamed in place with its parameters renamed too (``requote_path(path)`` ->
    # ``requote_uri(uri)``): every line naming a parameter differs, so such a pair is
    # compared once more with each parameter replaced by its position (gated by the
    # cheap bound like the first comparison).
    in_place = not same and old.change.path == new.change.path
    positional = False
    if TRACE is None and matcher.quick_ratio() < bound:
        if not in_place:
            return None
        matcher = SequenceMatcher(None, _positional(old), _positional(new), autojunk=False)
        if matcher.quick_ratio() < bound:
            return None
        positional = True
    value = matcher.ratio()
    if value < bound and in_place and not positional:
        value = max(value, score(_positional(old), _positional(new)))
    if TRACE is not None:
        TRACE.append((value, old.change.locator, new.change.locator, same))
    return value


_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _positional(c: Candidate) -> Text:
    """``c.text`` with each parameter name of its signature replaced by its position."""
    if c.positional is None:
        head = b" ".join(c.text[:8])
        start = head.find(b"(")
        names: list[bytes] = []
        if c.key[0] == "function" and start >= 0:
            depth, part = 0, bytearray()
            for byte in head[start + 1:]:
                char = bytes((byte,))
                if char in b"([{":
                    depth += 1
                elif char in b")]}":
                    if depth == 0:
                        break
                    depth -= 1
                if char == b"," and depth == 0:
                    names.append(bytes(part))
                    part.clear()
                else:
                    part.extend(char)
            names.append(bytes(part))
        params = []
        for piece in names:
            found = _IDENT.match(piece.strip().lstrip(b"*").strip())
            if found and found.group() not in (b"self", b"cls"):
                params.append(found.group())
        text = c.text
        for index, param in enumerate(params):
            marker = b"\x01" + str(index).encode()
            text = tuple(_replace_name(line, param, marker) if param in line else line
                         for line in text)
        c.positional = text
    return c.positional


def _ranked(value: float, old: Candidate, new: Candidate, i: int,
            j: int) -> tuple[float, int, int, str, str, int, int]:
    return (round(value, 6), 0 if old.name == new.name else 1,
            0 if old.change.path == new.change.path else 1, old.change.locator,
            new.change.locator, i, j)


def _roots(cands: list[Candidate]) -> list[Candidate]:
    present = {(c.change.path, c.qualname) for c in cands}
    return [c for c in cands if (c.change.path, _parent(c.qualname)) not in present]


def _nested(cands: list[Candidate]) -> dict[tuple[str, str], list[Candidate]]:
    """Each candidate's nested candidates (any depth), by (path, qualname)."""
    present = {(c.change.path, c.qualname) for c in cands}
    out: dict[tuple[str, str], list[Candidate]] = {}
    for c in cands:
        parent = _parent(c.qualname)
        while parent is not None:
            if (c.change.path, parent) in present:
                out.setdefault((c.change.path, parent), []).append(c)
            parent = _parent(parent)
    return out


def _carry(old: Candidate, new: Candidate, nested_old: dict[tuple[str, str], list[Candidate]],
           nested_new: dict[tuple[str, str], list[Candidate]], state: _Pairing,
           paired: set[int]) -> None:
    """Nested definitions of a pair with the same relative qualname pair with each other."""
    prefix_old, prefix_new = len(old.qualname) + 1, len(new.qualname) + 1
    inner_new = {(c.key[0], c.qualname[prefix_new:]): c
                 for c in nested_new.get((new.change.path, new.qualname), [])
                 if id(c) not in paired}
    for child in nested_old.get((old.change.path, old.qualname), []):
        if id(child) in paired:
            continue
        match = inner_new.pop((child.key[0], child.qualname[prefix_old:]), None)
        if match is not None:
            paired.update((id(child), id(match)))
            state.pairs.append((child, match))


def pair_definitions(changes: list[EntityChange], sides: SideIndex) -> tuple[
        list[EntityChange], bool]:
    """Replace paired ``removed``/``added`` definitions in ``changes`` by ``moved`` events.
    Returns the new list and whether the comparison bound was hit."""
    added_locators = {c.locator for c in changes if c.change_kind == "added"}
    removed = [c for c in changes if c.change_kind == "removed"
               and c.kind in ("class", "function") and c.locator not in added_locators]
    removed_locators = {c.locator for c in removed}
    added = [c for c in changes if c.change_kind == "added"
             and c.kind in ("class", "function") and c.locator not in removed_locators]
    if not added:
        return changes, False
    if not removed:
        return _renamed_away(changes, added, sides), False
    olds = _candidates(removed, sides.old)
    news = _candidates(added, sides.new)
    state = _Pairing()
    _greedy(_roots(olds), _roots(news), state)
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
    return (_renamed_away(out, left, sides) if left else out), state.limit_hit


def _renamed_away(changes: list[EntityChange], added: list[EntityChange],
                  sides: SideIndex) -> list[EntityChange]:
    """A definition renamed while a new one takes its old name in the same commit
    (``f -> g`` and a new ``f``): the diff sees the old name ``modified`` and the new name
    ``added``. When the added definition, in the same file, is the old one renamed (the
    rename thresholds: >= ``RENAME_MIN``, ``SHORT_RENAME_MIN`` below ``SHORT_TEXT_LINES``
    lines, at least ``RENAME_MIN_LINES``) and the definition now under the old name is not
    (below ``RENAME_MIN`` against the old text, and not naming the added one: an
    extraction leaves the old name calling it), the added one is ``moved`` from the old
    name and the old name's event becomes ``added``: a new lineage (the store applies a
    commit's moves before its additions). A line-set overlap screens pairs first, and
    texts come from one walk of each file's definition tree, so commits that only add and
    edit definitions pay little."""
    where = {(c.path, c.kind) for c in added}
    modified = [c for c in changes if c.change_kind == "modified"
                and (c.path, c.kind) in where and c.previous_path is None]
    if modified:
        paths = {c.path for c in modified}
        added = [c for c in added if c.path in paths]
    if not modified or len(modified) * len(added) > MAX_COMPARISONS:
        return changes
    olds, nows = _span_texts(modified, sides.old), _span_texts(modified, sides.new)
    news = _span_texts(added, sides.new)
    found: list[tuple[float, str, str, int, int]] = []
    for i, old in enumerate(modified):
        before, now = olds.get(id(old)), nows.get(id(old))
        if not before or now is None:
            continue
        lines = set(before)
        for j, new in enumerate(added):
            text = news.get(id(new))
            shorter = min(len(text), len(before)) if text is not None else 0
            if text is None or new.kind != old.kind or new.path != old.path or shorter < (
                    RENAME_MIN_LINES):
                continue
            bound = SHORT_RENAME_MIN if shorter < SHORT_TEXT_LINES else RENAME_MIN
            if sum(line in lines for line in text) < bound * max(len(text), len(before)):
                continue  # the overlap of lines already rules it out
            value = score(before, text)
            if value >= bound and score(before, now) < RENAME_MIN and not _names(
                    now, old.locator, new.locator):
                found.append((-value, old.locator, new.locator, i, j))
    found.sort()
    used_old: set[int] = set()
    used_new: set[int] = set()
    swap: dict[int, EntityChange] = {}
    for *_, i, j in found:
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        old, new = modified[i], added[j]
        swap[id(old)] = replace(old, change_kind="added")
        swap[id(new)] = replace(new, change_kind="moved", previous_locator=old.locator,
                                previous_path=old.path,
                                also_modified=olds[id(old)] != news[id(new)])
    return [swap.get(id(c), c) for c in changes] if swap else changes


def _names(now: Text, old: str, new: str) -> bool:
    """The definition now under the old name names the added one, or its class, or
    delegates to a same-named method elsewhere (``super().__init__(...)``,
    ``self._cache.get(...)``): an extraction (``get_environ_proxies`` now calling the new
    ``should_bypass_proxies``; ``reset_env`` now building a ``TestPipEnvironment``), so
    the old name is still the original."""
    old_q, new_q = old.rsplit(":", 1)[-1], new.rsplit(":", 1)[-1]
    if _leaf(old_q) == _leaf(new_q) and any(b"." + _PLACEHOLDER in line for line in now):
        return True
    names = {part.encode() for part in set(new_q.split(".")) - set(old_q.split("."))
             if part != "<locals>"}
    return any(name in line and _replace_name(line, name) != line
               for name in names for line in now)


def _span_texts(changes: list[EntityChange],
                sides: dict[str, tuple[PySide, Callable[[], list[bytes]]]]) -> dict[int, Text]:
    """Each change's definition text (as ``Candidate.text``) on one side, by ``id`` of the
    change; spans from one walk of each file's definition tree (no full entity build)."""
    by_path: dict[str, list[EntityChange]] = {}
    for change in changes:
        by_path.setdefault(change.path, []).append(change)
    out: dict[int, Text] = {}
    for path, group in by_path.items():
        found = sides.get(path)
        if found is None:
            continue
        side, load = found
        keys: dict[EntityKey, EntityChange] = {}
        for change in group:
            qualname = change.locator[len(f"python:{change.kind}:{side.dotted}."):]
            keys[(change.kind, qualname)] = change  # type: ignore[index]
        spans = definition_spans(side.entities, set(keys))
        if not spans:
            continue
        lines = load()
        for key, change in keys.items():
            if key in spans:
                out[id(change)] = _normal(_span_lines(lines, tuple(spans[key])),
                                          _leaf(key[1]).encode(), False)
    return out
