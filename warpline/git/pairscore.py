"""The alternative readings lineage's pairing scores a pair by (``lineage._compare``):
its texts' line counts (the cheap bound), each parameter by its position, both names
replaced on both sides, and locals renamed consistently."""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from warpline.git.candidates import Candidate, parent_of
from warpline.git.deftext import Text, replace_name
from warpline.lang import by_locator

__all__ = ["crossed", "parameters", "positional", "quick_ratio", "renamed_locals",
           "shape_ratio"]

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*|\S")
# How many locals one rename may rename too: more is a rewrite (or a sibling), not a rename.
_MAX_LOCALS = 2


def quick_ratio(old: Candidate, new: Candidate, total: int) -> float:
    """``SequenceMatcher(None, old.text, new.text).quick_ratio()`` (the lines both share,
    counted with multiplicity), from each text's line counts kept across its pairs."""
    small, large = old.counts(), new.counts()
    if len(small) > len(large):
        small, large = large, small
    matches = 0
    for line, count in small.items():
        other = large.get(line)
        if other is not None:
            matches += count if count < other else other
    return 2.0 * matches / total


def crossed(old: Candidate, new: Candidate) -> tuple[Text, Text] | None:
    """Both texts with the other side's name replaced too, when either names the other's
    and both are members of one scope (renamed in place: a method calling an overload of
    its old name); None otherwise. Across scopes the other's name in a text is as likely
    a nested definition of that name (pip 8326148: ``_sort_matches`` holding
    ``_eligible_for_upgrade``, which moved on its own)."""
    if parent_of(old.qualname) != parent_of(new.qualname):
        return None
    if new.name not in old.words() and old.name not in new.words():
        return None
    return (tuple(replace_name(line, new.name) for line in old.text),
            tuple(replace_name(line, old.name) for line in new.text))


def parameters(text: Text, wire_kind: str, locator: str) -> list[bytes]:
    """The parameter names of a function's signature, read from the first lines of its
    text (the first parenthesised list: a Go method's receiver counts as one); none for
    anything but a function."""
    head = b" ".join(text[:8])
    start = head.find(b"(")
    names: list[bytes] = []
    if wire_kind == "function" and start >= 0:  # the wire kind: every language
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
    row = by_locator(locator)
    type_first = row is not None and row.type_first_params
    for piece in names:
        if type_first:
            words = _IDENT.findall(piece)
            if words:
                params.append(words[-1])
            continue
        found = _IDENT.match(piece.strip().lstrip(b"*").strip())
        if found and found.group() not in (b"self", b"cls"):
            params.append(found.group())
    return params


def positional(c: Candidate) -> Text:
    """``c.text`` with each parameter name of its signature replaced by its position."""
    if c.positional is None:
        text = c.text
        for index, param in enumerate(parameters(c.text, c.change.kind, c.change.locator)):
            marker = b"\x01" + str(index).encode()
            text = tuple(replace_name(line, param, marker) if param in line else line
                         for line in text)
        c.positional = text
    return c.positional


def shape_ratio(old: Text, new: Text) -> float:
    """The quick ratio of the two texts' line shapes (every identifier blanked): a bound
    on what any consistent renaming of identifiers can score."""
    a = Counter(_IDENT.sub(b"_", line) for line in old)
    b = Counter(_IDENT.sub(b"_", line) for line in new)
    total = len(old) + len(new)
    return 2.0 * sum((a & b).values()) / total if total else 0.0


def renamed_locals(old: Text, new: Text) -> Text | None:
    """``old`` with its locals renamed as ``new`` renames them (``rows`` -> ``records`` on
    every line of a renamed function), None when no such rename is seen. A rename counts
    when aligned lines differ in exactly that identifier (at least twice, always the same
    replacement), it is no attribute (``.x``), the old name is gone from ``new`` and the
    new one was not in ``old``; more than ``_MAX_LOCALS`` of them is a rewrite."""
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    votes: Counter[tuple[bytes, bytes]] = Counter()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        for a, b in zip(old[i1:i2], new[j1:j2], strict=False):
            ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
            if len(ta) != len(tb):
                continue
            for k, (x, y) in enumerate(zip(ta, tb, strict=True)):
                if x != y and _IDENT.fullmatch(x) and _IDENT.fullmatch(y) and (
                        k == 0 or ta[k - 1] != b"."):
                    votes[(x, y)] += 1
    old_words = {w for line in old for w in _IDENT.findall(line)}
    new_words = {w for line in new for w in _IDENT.findall(line)}
    mapping: dict[bytes, bytes] = {}
    for (x, y), count in votes.items():
        if count < 2 or x in new_words or y in old_words:
            continue
        if x in mapping or y in mapping.values():
            return None  # not one consistent replacement
        mapping[x] = y
    if not mapping or len(mapping) > _MAX_LOCALS:
        return None
    out = old
    for x, y in mapping.items():
        out = tuple(replace_name(line, x, y) for line in out)
    return out
