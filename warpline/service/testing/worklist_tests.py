"""The worklist's tests: map-first selection wired into ``reverify``.

``reverify`` computes the static suggestions of its items as before; this module turns them
and the test map into ``data.selection``, the per-item suggestions of changed entities the
map answers for, and the one union command (grouped per pytest rootdir, ``testcommand``).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpline.service.graph import suggest
from warpline.service.graph.seeds import Seed
from warpline.service.testing import testcommand
from warpline.service.testing.testselect import Selection, select, static_entries

MAP_PER_ITEM = 20


@dataclass(slots=True)
class WorklistTests:
    """The test selection of a worklist, per item, with the commands to run it."""
    selection: Selection
    per_item: dict[str, list[dict[str, Any]]]
    commands: list[dict[str, str]]


def _by_seed(items: Iterable[Any], per_item: dict[str, list[dict[str, Any]]]
             ) -> dict[str, list[dict[str, Any]]]:
    """Each seed's static entries: its own and those of its downstream items."""
    out: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        key = item.seed.locator if item.seed is not None else item.locator
        out.setdefault(key, []).extend(per_item.get(item.locator, []))
    return out


def _map_entries(selection: Selection, locator: str) -> list[dict[str, Any]]:
    choice = selection.choice
    commit = choice.row.commit_sha[:12] if choice else "?"
    tests = selection.per_seed.get(locator, [])
    shown = tests[:MAP_PER_ITEM]
    more = f" ({len(tests)} tests in all: the union command runs every one)" \
        if len(tests) > MAP_PER_ITEM else ""
    return [{"kind": "test", "command": f"pytest {shlex.quote(t)}", "test": None,
             "distance": None, "callers": [],
             "why": f"The test map (recorded at {commit}) saw this test execute it{more}."}
            for t in shown]


def worklist_tests(ctx: Any, graph: Any, seeds: list[Seed], items: list[Any],
                   per_item: dict[str, list[dict[str, Any]]],
                   select_args: str | None, *, reaching: list[dict[str, Any]] | None = None,
                   floor: Sequence[str] = ()) -> WorklistTests:
    """``reaching`` (every test reaching a changed entity) and ``floor`` (the test files
    importing a changed module, run whole) widen the static basis's command."""
    static = _by_seed(items, per_item)
    unlisted = [s.locator for s in seeds if s.locator not in static]  # filtered away
    if unlisted:
        static.update(static_entries(graph, unlisted))
    selection = select(ctx.store.conn, ctx.repo, ctx.root, graph, seeds, static)
    out = dict(per_item)
    if selection.choice is not None:
        for locator in selection.from_map:
            if locator in out:
                out[locator] = _map_entries(selection, locator)
    commands: list[dict[str, str]] = []
    root: Path = ctx.root
    if selection.basis in ("static", "none"):
        union = suggest.union_command(
            [*(per_item[i.locator] for i in items if i.locator in per_item), reaching or []],
            floor)
        ids = testcommand.ids_of(union["command"]) if union else selection.tests
        why = union["why"] if union else "Runs the tests the static graph names."
        if union:  # the selection states what the command runs (floor files included)
            selection.tests = list(ids)
            if selection.basis == "none" and ids:
                selection.basis = "static"
    else:
        ids = selection.tests
        source = "the test map" if selection.basis == "map" else \
            "the test map and the static graph"
        why = f"Runs the {len(ids)} tests selected from {source} for the changed entities."
    built = testcommand.command_for(root, ids)
    if built is not None:
        command, widened = built
        if widened:
            why += f" (more than {testcommand.MAX_IDS} ids: their whole files)"
        commands.append({"command": command, "why": why})
        if selection.basis in ("map", "mixed") and select_args is not None:
            commands.append({"command": f"pytest {select_args}".rstrip(),
                             "why": "The same selection, made by warpline's pytest plugin "
                                    "(needs warpline installed where pytest runs)."})
    else:
        commands.append({"command": "pytest",
                         "why": "No test is known to exercise the changed entities: run the "
                                "whole suite."})
    return WorklistTests(selection, out, commands)


def select_flag(rev_range: str | None) -> str:
    """The ``--warpline-select`` flag reproducing a reverify call's range."""
    return "--warpline-select" + (f"={shlex.quote(rev_range)}" if rev_range else "")
