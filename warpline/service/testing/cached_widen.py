"""Cached definitions: the tests a test map cannot link to them, found through their callers.

A function decorated with ``functools.cache``, ``lru_cache``, ``cached_property`` and the
like (``warpline.lang.pycached``) runs its body on the first call only: the map links it to
the test that happened to call it first, and to no later test that used its (now broken)
result; and no later test runs the code below it either. For each changed definition that
is cached, or is reached (within ``MAX_HOPS_UP`` edges) from a cached caller, the selection
adds

* the tests the map saw execute the callers of those cached definitions (the snapshot's
  edges into them, both kinds: a reference hands the function on to be called);
* every test the static graph reaches them from (``suggest.reaching_tests``).

Whether a definition is cached is read from the source: the work tree's for an uncommitted
change, else HEAD's, and the map's commit (the version the map was recorded on). Only
functions the graph and the commits name are read; nothing is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from warpline.git.filecaps import MAX_PARSE_BYTES
from warpline.lang.locators import dotted_module, function_locator
from warpline.lang.pycached import cached_definitions
from warpline.runners import test_ids
from warpline.service.impact import suggest
from warpline.service.impact.seeds import Seed
from warpline.store.db import Store
from warpline.store.testmaps import tests_executing

MAX_CALLERS = 500  # callers whose map links are read, per changed definition
MAX_HOPS_UP = 4  # how far up its callers a changed definition looks for a cached one
MAX_ANCESTORS = 500  # callers read on the way


@dataclass(slots=True)
class CachedWidening:
    """How one changed cached definition's tests were widened."""
    locator: str
    decorator: str | None  # None: not cached itself, called through ``cached_callers``
    callers: int = 0
    cached_callers: list[str] = field(default_factory=list)
    map_tests: list[str] = field(default_factory=list)  # tests that ran a caller
    static_tests: list[str] = field(default_factory=list)  # tests reaching it statically
    graph_known: bool = True
    added: list[str] = field(default_factory=list)  # selected for it by this widening only

    def wire(self) -> dict[str, Any]:
        return {"locator": self.locator, "decorator": self.decorator,
                "cached_callers": self.cached_callers[:20], "callers": self.callers,
                "map_tests": len(self.map_tests), "static_tests": len(self.static_tests)}


class _Sources:
    """Cached definitions per file, read once per (revision, path)."""

    def __init__(self, repo: Any, root: Path, revs: list[str]) -> None:
        self.repo, self.root, self.revs = repo, root, revs
        self._read: dict[tuple[str, str], dict[str, str]] = {}

    def decorator(self, locator: str, path: str | None, worktree: bool) -> str | None:
        """The caching decorator of the function ``locator`` in any version read."""
        if not path or not path.endswith(".py") or not locator.startswith("python:function:"):
            return None
        dotted = dotted_module(path)
        prefix = function_locator(dotted, "") if dotted else ""
        if not dotted or not locator.startswith(prefix):
            return None
        qualname = locator[len(prefix):]
        for rev in (["WORKTREE"] if worktree else []) + self.revs:
            found = self._definitions(rev, path).get(qualname)
            if found is not None:
                return found
        return None

    def _definitions(self, rev: str, path: str) -> dict[str, str]:
        from warpline.git.lookups import blob_at  # pygit2: not on the light CLI paths

        key = (rev, path)
        if key not in self._read:
            source = self._worktree(path) if rev == "WORKTREE" else \
                blob_at(self.repo, rev, path, MAX_PARSE_BYTES) if self.repo is not None else None
            self._read[key] = cached_definitions(source) if source is not None else {}
        return self._read[key]

    def _worktree(self, path: str) -> bytes | None:
        disk = self.root / path
        try:
            if disk.is_symlink() or not disk.is_file() or disk.stat().st_size > MAX_PARSE_BYTES:
                return None
            return disk.read_bytes()
        except OSError:
            return None


def widen(store: Store, repo: Any, root: Path, graph: nx.DiGraph | None, seeds: list[Seed],
          map_id: int | None, map_commit: str | None) -> list[CachedWidening]:
    """The widening of every changed definition that is cached, or called through a cached
    caller (empty when none is: the selection is then exactly what it was)."""
    sources = _Sources(repo, root, ["HEAD", *([map_commit] if map_commit else [])])
    out: list[CachedWidening] = []
    for seed in seeds:
        decorator = sources.decorator(seed.locator, seed.path, seed.uncommitted)
        if graph is None or seed.locator not in graph._node:
            if decorator is not None:
                out.append(CachedWidening(seed.locator, decorator, graph_known=graph is not None))
            continue
        above = _cached_ancestors(graph, seed.locator, sources)
        if decorator is None and not above:
            continue
        heads = [*([seed.locator] if decorator is not None else []), *above]
        found = CachedWidening(seed.locator, decorator, cached_callers=list(above))
        pred: dict[str, dict[str, Any]] = graph._pred
        callers = list(dict.fromkeys(c for head in heads for c in pred.get(head, {})
                                     if c != seed.locator))[:MAX_CALLERS]
        found.callers = len(callers)
        if map_id is not None and callers:
            executed = tests_executing(store, map_id, callers)
            found.map_tests = sorted({t for tests in executed.values() for t in tests})
        reaching = suggest.reaching_tests(graph, heads)
        found.static_tests = sorted({i for test in reaching for i in test_ids(graph, test)})
        out.append(found)
    return out


def _cached_ancestors(graph: nx.DiGraph, locator: str, sources: _Sources) -> dict[str, str]:
    """The cached definitions ``locator`` is reached from within ``MAX_HOPS_UP`` edges
    (``MAX_ANCESTORS`` read at most), with their decorators: a test that uses one's cached
    result runs none of the code below it."""
    pred: dict[str, dict[str, Any]] = graph._pred
    nodes: dict[str, dict[str, Any]] = graph._node
    seen = {locator}
    found: dict[str, str] = {}
    frontier = [locator]
    for _ in range(MAX_HOPS_UP):
        step: list[str] = []
        for node in frontier:
            for caller in pred.get(node, {}):
                if caller in seen or len(seen) > MAX_ANCESTORS:
                    continue
                seen.add(caller)
                step.append(caller)
                decorator = sources.decorator(caller, nodes.get(caller, {}).get("path"), False)
                if decorator is not None:
                    found[caller] = decorator
        frontier = step
    return found


def warning(widened: CachedWidening) -> str:
    """Why the selection holds more than the map's tests for a cached definition."""
    if widened.decorator is not None:
        what = (f"{widened.locator} is cached (@{widened.decorator}): its body runs on the "
                "first call only, so a test map links it to whichever test called it first.")
    else:
        what = (f"{widened.locator} is called through cached definitions "
                f"({', '.join(widened.cached_callers[:3])}"
                f"{' and more' if len(widened.cached_callers) > 3 else ''}): a test using "
                "their cached results runs none of it, so a test map does not link it.")
    if not widened.graph_known:
        return (what + " No edge snapshot names its callers: their tests could not be added. "
                "Capture one (`warpline capture-snapshot`) or run the whole suite.")
    return (what + f" The {len(widened.map_tests)} tests the map saw run the "
            f"{widened.callers} callers of the cached definitions and the "
            f"{len(widened.static_tests)} tests reaching them through the static graph are "
            "selected too.")
