"""The one rule for code the dependency graph cannot see (issue 34): changed entities of a
language the edge snapshot holds no entity of. Their dependents are unknown, not absent,
so no answer about them is ``FULL`` or says "none": impact and reverify answer ``DELTA``
with this warning (``service/impact/impact.py``), ``session-context`` names the gap instead
of "Nothing missing" (``setup/session.py``), and every rendering of an empty blast radius
says "unknown" for them (``cli/formats.py``, ``cli/picture.py``). Stdlib only."""

from __future__ import annotations

from collections.abc import Iterable

FILE_PREFIX = "core"


def prefix_of(locator: str) -> str:
    return locator.partition(":")[0]


def unseen_languages(held: Iterable[str], changed: Iterable[str]) -> dict[str, int]:
    """Per locator prefix (``go``, ``ts``...), how many ``changed`` locators are of a language
    the graph (whose prefixes are ``held``) holds nothing of; files are no language."""
    have = set(held)
    unseen: dict[str, int] = {}
    for locator in changed:
        prefix = prefix_of(locator)
        if prefix != FILE_PREFIX and prefix not in have:
            unseen[prefix] = unseen.get(prefix, 0) + 1
    return unseen


def read_languages(held: Iterable[str]) -> str:
    return ", ".join(sorted(p for p in set(held) if p != FILE_PREFIX)) or "no language"


def unseen_warning(unseen: dict[str, int], held: Iterable[str]) -> str:
    counts = ", ".join(f"{n} {prefix}" for prefix, n in sorted(unseen.items()))
    return (f"The edge snapshot holds no entity of the changed code's language ({counts} "
            f"changed entities; the snapshot's sources read: {read_languages(held)}): their "
            "dependents are unknown, not absent, so this answer is DELTA, not FULL.")
