"""History follows the definition, not its ordinal: definitions of one file version that
would share a name are ``name``, ``name~2``, … in source order (docs/languages.md), so a
same-named definition inserted before others renames each later one. The diff then sees
``helper`` ``modified`` (its text is now the inserted one's) and ``helper~2`` ``added``;
this rule pairs the old and new definitions of one base name by text first.

Per file and base name (the qualname with every ``~N`` ordinal dropped, so ``f~2.g`` is
``f.g``'s), when the commit both modified and added definitions of it: each old
definition (a modified locator's old text) pairs with the new definition it is most
alike (a modified locator's new text, or an added one's), best score first, its own
locator winning ties, at least ``SAME_NAME_MIN`` (one name). Pairs that leave their
locator are kept only when they form chains ``L1 -> L2 -> … -> Lk`` ending at an added
locator (the ordinals a commit shifts): ``Lk`` … ``L2`` are ``moved`` from the previous
link and ``L1``'s new text, which no old definition took, is ``added``. A cycle (two
namesakes swapped), a chain ending at a definition whose old text went nowhere, or a
group past ``_MAX_GROUP`` keeps the diff's events. The store applies a commit's moves in
list order before its additions, so each chain's moves come first, from its end back:
every link's old lineage is carried on before the link is taken over.

Not handled: a definition removed before same-named ones (the later ones shift down:
``helper`` ``modified``, ``helper~2`` ``removed``): the event vocabulary has no way to end
the first one's lineage on a locator that stays.
"""

from __future__ import annotations

import re

from warpline.git.deftext import SAME_NAME_MIN, SideIndex, score, span_texts
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange
from warpline.lang.entities import EntityKey

__all__ = ["follow_ordinals"]

_ORDINAL = re.compile(r"~[0-9]+(?=\.|$)")
# Above this many definitions of one base name in one file, every pair is not scored.
_MAX_GROUP = 24


def follow_ordinals(changes: list[EntityChange], sides: SideIndex) -> list[EntityChange]:
    """``changes`` with ordinal shifts followed (the module docstring's rule)."""
    groups: set[tuple[str, str, str]] = set()
    for change in changes:
        if change.change_kind == "added" and "~" in change.locator:
            found = sides.new.get(change.path)
            if found is not None and change.kind in ("class", "function"):
                key = found[0].key_of(change.locator)
                if _ORDINAL.search(key[1]):
                    groups.add((change.path, key[0], _ORDINAL.sub("", key[1])))
    if not groups:
        return changes
    swap: dict[int, EntityChange] = {}
    first: list[EntityChange] = []
    extra: list[EntityChange] = []
    for path, kind, base in sorted(groups):
        events = {c.locator: c for c in changes if c.path == path}
        swaps = _follow(path, kind, base, events, sides)
        for old, new in swaps or ():
            if new.change_kind == "moved":
                first.append(new)  # ahead of the rest, in chain order
            elif old is None:
                extra.append(new)
            if old is not None:
                swap[id(old)] = new
    if not first:
        return changes
    moved = {id(c) for c in first}
    rest = [swap.get(id(c), c) for c in changes]
    return first + [c for c in rest if id(c) not in moved] + extra


def _locators(side: PySide, kind: str, base: str) -> dict[str, EntityKey]:
    return {side.locator(key): key for key in side.entities.counts
            if key[0] == kind and _ORDINAL.sub("", key[1]) == base}


# The diff's event (None: the locator had none) and the one that replaces it.
_Swap = tuple[EntityChange | None, EntityChange]


def _follow(path: str, kind: str, base: str, events: dict[str, EntityChange],
            sides: SideIndex) -> list[_Swap] | None:
    """The swaps of one base name's definitions in one file: each chain's moved links
    (in store order) and its head, now ``added``; None: the diff's events stand."""
    old_side, new_side = sides.old.get(path), sides.new.get(path)
    if old_side is None or new_side is None:
        return None
    before_keys = _locators(old_side[0], kind, base)
    after_keys = _locators(new_side[0], kind, base)
    if len(after_keys) > _MAX_GROUP or any(
            events.get(loc) is not None and events[loc].change_kind != "modified"
            for loc in before_keys):
        return None  # removed (or moved away) before same-named ones: not handled
    olds = [loc for loc in before_keys if loc in after_keys]
    news = sorted(after_keys)
    before = span_texts([(path, loc) for loc in olds], sides.old)
    after = span_texts([(path, loc) for loc in news], sides.new)
    ranked: list[tuple[float, int, str, str]] = []
    for old in olds:
        if (path, old) not in before:
            continue
        text = before[(path, old)][1]
        for new in news:
            if (path, new) in after:
                value = score(text, after[(path, new)][1])
                if value >= SAME_NAME_MIN:
                    ranked.append((-value, 0 if new == old else 1, old, new))
    ranked.sort()
    target: dict[str, str] = {}  # old locator -> the new locator its definition went to
    used: set[str] = set()
    for _, _, old, new in ranked:
        if old not in target and new not in used:
            used.add(new)
            target[old] = new
    moves = {a: b for a, b in target.items() if a != b}
    if not moves:
        return None
    sources = set(moves.values())
    chains: list[list[str]] = []
    for start in moves:
        if start in sources:
            continue  # inside a chain: walked from its head
        chain = [start]
        while chain[-1] in moves and len(chain) <= len(news):
            chain.append(moves[chain[-1]])
        end = events.get(chain[-1])
        if chain[-1] in before_keys or end is None or end.change_kind != "added":
            return None  # ends at a definition whose old text went nowhere
        chains.append(chain)
    if sum(len(chain) - 1 for chain in chains) != len(moves):
        return None  # a cycle: namesakes swapped
    out: list[_Swap] = []
    wire = new_side[0].kind(after_keys[news[0]])
    for chain in chains:
        for at in range(len(chain) - 1, 0, -1):
            old, new = chain[at - 1], chain[at]
            out.append((events.get(new), EntityChange(
                new, wire, "moved", path, old, path,
                before[(path, old)][1] != after[(path, new)][1])))
        out.append((events.get(chain[0]), EntityChange(chain[0], wire, "added", path)))
    return out
