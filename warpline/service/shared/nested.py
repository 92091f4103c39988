"""Definitions nested in a function (issue 35, item 10): the locator prefixes under which
a function's nested definitions live, for ``timeline`` and ``churn`` to offer their
changes beside the function's own (marked nested; own lines stay the attribution rule).

A nested definition's locator is its parent's dotted name, a dot and its own path, in any
of its language's kinds: ``python:function:m.f.<locals>.g``, ``rust:function:c.f.~fn.g``,
``ts:class:src/a.f.Local``, ``java:class:p.C.run().Local``."""

from __future__ import annotations

from collections.abc import Iterable

from warpline.lang import by_locator

__all__ = ["nested_prefixes"]


def nested_prefixes(locators: Iterable[str]) -> list[str]:
    """Every prefix a definition nested in one of ``locators`` (a function's names across
    its lineage) has: one per kind of the locator's language."""
    out: set[str] = set()
    for locator in locators:
        row = by_locator(locator)
        prefix, _, rest = locator.partition(":")
        dotted = rest.partition(":")[2]
        if row is None or not dotted:
            continue
        out.update(f"{prefix}:{kind}:{dotted}." for kind in row.kinds if kind != "module")
    return sorted(out)
