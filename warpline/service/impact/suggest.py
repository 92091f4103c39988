"""Derived ``suggested_verification``: the tests whose call paths reach an item.

A *test* is a definition a runner row's ``graph_tests`` names (pytest: a function it
collects by the project's own rules, including test methods inherited by collected
subclasses). Its command is the owning row's ``command`` for that one id, run from the
repository root; the entry keeps the id (``test_id``).

For each item, the nearest ``PER_ITEM`` tests from which the item is reachable along graph
edges (a test calls ... calls/references the item), at most ``MAX_HOPS`` edges away,
nearest first. Computed for all items at once: one reverse walk marks the region that can
reach any item, then a breadth-first walk from every test in the region forward keeps, per
node, the first ``PER_ITEM`` distinct tests to arrive: those are its nearest (a node's
k-th nearest test reaches it through a predecessor for which that test is among the
k nearest too), so the work is bounded by ``PER_ITEM`` x edges in the region. Once most
items have their tests, the region shrinks to what can still reach one that lacks them
within the hops left (nothing outside it can change those items' tests or their order).

When no test reaches an item, an ``inspection`` entry names the callers to read.

The static selection (``static_union``) adds a floor: the test files that import a changed
entity's module (or a name a package re-exports from it), since code reached at run time
through frameworks, callbacks and dunders is invisible to the graph
(``discovery.floor_files``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from warpline.runners import RUNNERS, owner_of, test_ids, test_nodes
from warpline.runners.pytest_discovery import floor_files
from warpline.runners.pytest_rules import DEFAULT_RULES, TestRules

__all__ = ["floor_files", "inspection", "is_test_file", "nearest_tests", "reaching_entries",
           "reaching_tests", "static_union", "suggestions", "test_command"]

MAX_HOPS = 6
PER_ITEM = 5
MAX_CALLERS = 10
MAX_UNION_IDS = 60
_FUNCTION = "python:function:"


def is_test_file(path: str, rules: TestRules = DEFAULT_RULES) -> bool:
    return rules.is_test_file(path)


def nearest_tests(graph: nx.DiGraph, targets: Iterable[str]) -> dict[str, list[tuple[str, int]]]:
    """For each target in the graph: up to ``PER_ITEM`` (test locator, hops), nearest first."""
    # The raw adjacency dicts: the public views cost a wrapper object per lookup, and this
    # walk touches every edge of the region once per label.
    pred: dict[str, dict[str, Any]] = graph._pred
    succ: dict[str, dict[str, Any]] = graph._succ
    wanted = [t for t in dict.fromkeys(targets) if t in pred]
    region = _callers_within(pred, wanted, MAX_HOPS)
    tests = [t for t in _graph_tests(graph) if t in region]
    # node -> {test: hops}, in arrival order (so nearest first: waves go hop by hop).
    labels: dict[str, dict[str, int]] = {t: {t: 0} for t in tests}
    # node -> the tests that reached it in the last wave (each forwarded once).
    wave: dict[str, list[str]] = {t: [t] for t in tests}
    region_from = len(wanted)
    for hop in range(1, MAX_HOPS + 1):
        unfull = [t for t in wanted if len(labels.get(t, ())) < PER_ITEM]
        if not unfull:
            break  # every target has its nearest tests: farther waves cannot change them
        if 2 * len(unfull) <= region_from:
            # What arrives at this hop matters only where it can still reach a target that
            # lacks tests within the hops left: the rest of the region is dead weight. (A
            # node outside that set only feeds nodes outside it, so targets' labels, and
            # their arrival order, are the same as over the whole region.)
            region = _callers_within(pred, unfull, MAX_HOPS - hop)
            region_from = len(unfull)
        following: dict[str, list[str]] = {}
        for node, arriving in wave.items():
            for callee in succ[node]:
                if callee not in region:
                    continue
                seen = labels.get(callee)
                if seen is None:
                    seen = labels[callee] = {}
                room = PER_ITEM - len(seen)
                for test in arriving:
                    if room <= 0:
                        break
                    if test not in seen:
                        seen[test] = hop
                        following.setdefault(callee, []).append(test)
                        room -= 1
        wave = following
    return {t: list(labels[t].items()) for t in wanted if t in labels}


def reaching_tests(graph: nx.DiGraph, targets: Iterable[str],
                   hops: int = MAX_HOPS) -> dict[str, int]:
    """Every test from which one of ``targets`` is reachable within ``hops`` edges, with
    its distance to the nearest: the whole static answer, where ``nearest_tests`` keeps
    the ``PER_ITEM`` nearest per target. One reverse breadth-first walk."""
    pred: dict[str, dict[str, Any]] = graph._pred
    distance = {t: 0 for t in dict.fromkeys(targets) if t in pred}
    frontier = list(distance)
    reach = _reach(graph, hops)
    for hop in range(1, max(reach.values(), default=hops) + 1):
        step = []
        for node in frontier:
            for caller in pred[node]:
                if caller not in distance:
                    distance[caller] = hop
                    step.append(caller)
        frontier = step
    return {node: hops_ for node, hops_ in distance.items()
            if node in reach and hops_ <= reach[node]}


def _reach(graph: nx.DiGraph, hops: int) -> dict[str, int]:
    """Test locator -> how far from a change it may be: ``hops`` (``MAX_HOPS``) for
    pytest's, a row's own ``reach_hops`` where it is larger (Java's chains run deep)."""
    if hops != MAX_HOPS or len(RUNNERS) == 1:
        return dict.fromkeys(test_nodes(graph), hops)
    key = "warpline_reach_hops"
    cached: dict[str, int] | None = graph.graph.get(key)
    if cached is None:
        cached = {}
        for runner in RUNNERS:
            for node in runner.test_nodes(graph):
                cached[node] = max(cached.get(node, 0), max(hops, runner.reach_hops))
        graph.graph[key] = cached
    return cached


def reaching_entries(graph: nx.DiGraph, targets: Iterable[str]) -> list[dict[str, Any]]:
    """``reaching_tests`` as entries ``static_union`` reads (``test_id``, ``distance``)."""
    found = reaching_tests(graph, targets)
    return [{"kind": "test", "test_id": test_id, "distance": hops}
            for test, hops in sorted(found.items(), key=lambda kv: (kv[1], kv[0]))
            for test_id in test_ids(graph, test)]


def _graph_tests(graph: nx.DiGraph) -> list[str]:
    return test_nodes(graph)


def _callers_within(pred: dict[str, dict[str, Any]], targets: list[str], hops: int) -> set[str]:
    """``targets`` and every node with a path of at most ``hops`` edges to one of them."""
    region: set[str] = set(targets)
    frontier = targets
    for _ in range(hops):
        step = []
        for node in frontier:
            for caller in pred[node]:
                if caller not in region:
                    region.add(caller)
                    step.append(caller)
        frontier = step
    return region


def test_command(root: Path, test_id: str) -> str | None:
    """The command running one test: its owning row's (``Runner.command``; with the root,
    a JavaScript test's is its package's runner's: ``owner_of``)."""
    owner = owner_of(test_id, root)
    built = owner.command(root, [test_id]) if owner is not None else None
    return built[0] if built is not None else None


def suggestions(graph: nx.DiGraph | None, locator: str, tests: Sequence[tuple[str, int]],
                root: Path) -> list[dict[str, Any]]:
    """The item's suggested_verification entries."""
    out: list[dict[str, Any]] = []
    for test, hops in tests:
        for node_id in test_ids(graph, test) if graph is not None else ():
            out.append({"kind": "test", "command": test_command(root, node_id),
                        "test_id": node_id, "test": test, "distance": hops, "callers": [],
                        "why": "This is the test itself." if hops == 0 else
                        f"This test reaches it through {hops} call/reference edge(s)."})
    if out:
        return out
    return [inspection(graph, locator)]


def inspection(graph: nx.DiGraph | None, locator: str) -> dict[str, Any]:
    if graph is None:
        why = "No edge snapshot: no test could be traced to it. Read the change itself."
        callers: list[str] = []
    elif locator not in graph:
        why = ("It is not in the edge snapshot (added after it, removed, or not Python): "
               "read the change itself.")
        callers = []
    else:
        callers = sorted(graph.pred[locator])[:MAX_CALLERS]
        why = (f"No test reaches it within {MAX_HOPS} edges; read its callers."
               if callers else
               f"No test reaches it within {MAX_HOPS} edges and nothing calls or references "
               "it; read the change itself.")
    return {"kind": "inspection", "command": None, "test": None, "distance": None,
            "callers": callers, "why": why}


def _file_of(test_id: str) -> str:
    owner = owner_of(test_id)
    return owner.test_file(test_id) if owner is not None else test_id


def static_union(per_item: Iterable[list[dict[str, Any]]],
                 floor: Sequence[str] = ()) -> tuple[list[str], str]:
    """The static basis's tests: the ``floor`` test files (``floor_files``) whole, then the
    union of the suggested tests not in them, nearest first (as their files past
    ``MAX_UNION_IDS`` ids); and the words saying so. Nothing is cut: the selection runs
    every test it names."""
    ranked: dict[str, int] = {}
    floor_set = set(floor)
    for entries in per_item:
        for entry in entries:
            node_id = entry.get("test_id")
            if entry["kind"] != "test" or not node_id:
                continue
            if _file_of(node_id) in floor_set:
                continue  # its whole file runs
            hops = entry["distance"] or 0
            ranked[node_id] = min(ranked.get(node_id, hops), hops)
    files = sorted(floor_set)
    extra = sorted(ranked, key=lambda node_id: (ranked[node_id], node_id))
    as_files = len(files) + len(extra) > MAX_UNION_IDS
    if as_files:
        extra = list(dict.fromkeys(_file_of(node_id) for node_id in extra
                                   if _file_of(node_id) not in floor_set))
    if files:
        why = (f"Runs the {len(files)} test files that import a changed entity's module (a "
               "floor for code reached at run time, which the graph cannot see) and the "
               f"{len(ranked)} other tests that reach the worklist's items"
               + (" (as their files)" if as_files and ranked else "") + ".")
    elif as_files:
        why = (f"Runs the {len(extra)} test files holding the {len(ranked)} tests that reach "
               "the worklist's items.")
    else:
        why = f"Runs the {len(extra)} tests that reach the worklist's items."
    return [*files, *extra], why
