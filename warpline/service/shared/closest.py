"""The names a user probably meant when a ref names no known entity.

Candidates come from the store's entities, in the form a user types back (the dotted
qualname of a Python entity, the path of a file): those containing the query's last name
segment, plus those whose last segment is close to it (``difflib``), ranked by similarity
to the whole query. Bounded: at most ``MAX_SCAN`` entity rows are read.
"""

from __future__ import annotations

import re

from warpline.lang import LOCATOR_HEAD
from warpline.store.db import Store
from warpline.store.entities import some_locators

MAX_SCAN = 400_000
_PREFIX = re.compile(rf"^(?:{LOCATOR_HEAD})")
_SPLIT = re.compile(r"[./:]")


def display(locator: str) -> str:
    """``python:function:pkg.mod.f`` -> ``pkg.mod.f``; ``core:file:a/b.py`` -> ``a/b.py``."""
    return _PREFIX.sub("", locator)


def callable_name(locator: str) -> str:
    """The name to hand back for ``locator``: its short form when a ref of kind ``auto``
    reads that form as what it is (a dotted name for code, a path for a file), else the
    locator itself (``go:function:github.com/spf13/cobra.Command.Execute`` has a ``/``
    and would be read as a path)."""
    from warpline.service.shared.resolve import classify

    short = display(locator)
    wanted = "path" if locator.startswith("core:file:") else "qualname"
    return short if short and classify(short) == wanted else locator


def _last(name: str) -> str:
    parts = [p for p in _SPLIT.split(name) if p]
    return parts[-1].lower() if parts else name.lower()


class NameIndex:
    """The store's entity names by last segment, read once, for several lookups."""

    def __init__(self, store: Store) -> None:
        self.by_last: dict[str, set[str]] = {}
        self.locator_of: dict[str, str] = {}
        for locator in some_locators(store, MAX_SCAN):
            name = display(locator)
            self.by_last.setdefault(_last(name), set()).add(name)
            self.locator_of.setdefault(name, locator)

    def closest(self, query: str, limit: int = 5) -> list[str]:
        """Up to ``limit`` known names closest to ``query``, best first (may be empty),
        each in a form that names its entity when passed back (``callable_name``)."""
        import difflib  # only an unknown ref needs it: a call naming known refs skips it

        wanted = display(query.strip())
        if not wanted:
            return []
        last = _last(wanted)
        pool: set[str] = set()
        for segment in difflib.get_close_matches(last, list(self.by_last), n=10, cutoff=0.6):
            pool |= self.by_last[segment]
        if len(pool) < limit and len(last) >= 3:
            for segment, names in self.by_last.items():
                if last in segment:
                    pool |= names
                    if len(pool) >= 200:
                        break
        pool.discard(wanted)
        ranked = sorted(pool, key=lambda n: (
            -difflib.SequenceMatcher(None, wanted, n).ratio(), len(n), n))
        return [callable_name(self.locator_of[name]) for name in ranked[:limit]]


def closest_names(store: Store, query: str, limit: int = 5) -> list[str]:
    return NameIndex(store).closest(query, limit)


def unknown_entity_warning(store: Store | NameIndex, kind: str,
                           value: str) -> tuple[str, list[str]]:
    """The warning for a ref that names nothing, and the suggested names."""
    index = store if isinstance(store, NameIndex) else NameIndex(store)
    names = index.closest(value)
    hint = (f" Closest known names: {', '.join(names)}." if names
            else " No similar name is known either; check the spelling or run "
                 "`warpline backfill` if the history is not ingested yet.")
    label = "" if kind in ("auto", "qualname", "locator") else f"{kind} "
    return (f"no entity named {label}{value!r} in this repository's ingested history.{hint}",
            names)
