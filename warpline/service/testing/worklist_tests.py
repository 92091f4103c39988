"""The worklist's tests: map-first selection wired into ``reverify``.

``reverify`` computes the static suggestions of its items; this module turns them and the
test map into the one selection (``data.selection``, its ``tests`` are what every output
runs), the per-item suggestions of changed entities the map answers for, and the command
running the selection (grouped per pytest rootdir, ``testcommand``).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpline.service.impact.seeds import Seed
from warpline.service.testing import testcommand
from warpline.service.testing.static_basis import StaticBasis
from warpline.service.testing.testselect import Selection, select, static_entries
from warpline.store.testmaps import test_counts

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
    more = f" ({len(tests)} tests in all: the selection runs every one)" \
        if len(tests) > MAP_PER_ITEM else ""
    widened = next((c for c in selection.cached if c.locator == locator), None)
    through = set(widened.added) if widened is not None else set()
    seen = f"The test map (recorded at {commit}) saw this test execute it{more}."
    cached = "" if widened is None else (
        f"It is cached (@{widened.decorator})" if widened.decorator is not None else
        "It is called through cached definitions") + (
        f": this test reaches it through a caller, and may use a result computed before{more}.")
    return [{"kind": "test", "command": f"pytest {shlex.quote(t)}", "test": None,
             "distance": None, "callers": [], "why": cached if t in through else seen}
            for t in shown]


def worklist_tests(ctx: Any, graph: Any, seeds: list[Seed], items: list[Any],
                   per_item: dict[str, list[dict[str, Any]]],
                   select_args: str | None) -> WorklistTests:
    """The one selection of a worklist (``testselect.select``) and the command running it.
    Only the changes pytest runs are selected; code in another language gets no pytest
    command, and a warning names its own ecosystem's (``Runners``)."""
    static = _by_seed(items, per_item)
    unlisted = [s.locator for s in seeds if s.locator not in static]  # filtered away
    if unlisted:
        static.update(static_entries(graph, unlisted))
    basis = StaticBasis(graph, static, {s.locator: s.path for s in seeds})
    runners = Runners.of(ctx.root, seeds)
    selection = select(ctx.store, ctx.repo, ctx.root, basis, runners.python_seeds) \
        if runners.pytest else Selection(basis="none")
    selection.warnings += runners.warnings()
    out = dict(per_item)
    if selection.choice is not None:
        for locator in selection.from_map:
            if locator in out:
                out[locator] = _map_entries(selection, locator)
    commands = commands_of(ctx.root, selection, select_args) if runners.pytest else []
    return WorklistTests(selection, out, commands)


@dataclass(slots=True)
class Runners:
    """Which changes pytest runs, and the others' own whole-suite commands (language ->
    command): warpline selects Python's tests only so far."""

    pytest: bool
    python_seeds: list[Seed]
    others: dict[str, str]

    @classmethod
    def of(cls, root: Path, seeds: list[Seed]) -> Runners:
        from warpline.lang import PYTHON, of_change

        python_seeds: list[Seed] = []
        others: dict[str, str] = {}
        python_code = False
        for seed in seeds:
            lang = of_change(seed.locator, seed.path)
            if lang is None or lang.name == PYTHON.name:
                python_seeds.append(seed)  # Python, or a file pytest may read (config)
                python_code = python_code or lang is not None
            elif lang.test_command:
                others[lang.wire_name] = lang.test_command
        pytest = python_code or (bool(python_seeds) and testcommand.uses_pytest(root))
        return cls(pytest, python_seeds if pytest else [], others)

    def warnings(self) -> list[str]:
        if not self.others:
            return []
        return ["warpline selects tests for Python (pytest) only so far: no command here "
                f"runs the changed {', '.join(sorted(self.others))} code. Run the project's "
                "own tests for it ("
                + "; ".join(f"{name}: `{command}`" for name, command in sorted(self.others.items()))
                + ")."]


def commands_of(root: Path, selection: Selection,
                select_args: str | None) -> list[dict[str, str]]:
    """``next_actions.commands`` for the selection: the one command running exactly
    ``selection.tests`` first (``pytest`` when no test is known)."""
    ids = selection.tests
    if selection.basis == "static":
        why = selection.static_why or "Runs the tests the static graph names."
    elif selection.basis in ("map", "mixed"):
        source = "the test map" if selection.basis == "map" else \
            "the test map, the static graph and the import floor"
        why = f"Runs the {len(ids)} tests selected from {source} for the changed entities."
    else:
        why = ""
    built = testcommand.command_for(root, ids)
    if built is None:
        return [{"command": "pytest", "why": "No test is known to exercise the changed "
                                             "entities: run the whole suite."}]
    if selection.widened:
        why += f" (more than {testcommand.MAX_IDS} ids: their whole files)"
    commands = [{"command": built[0], "why": why}]
    if select_args is not None:
        commands.append({"command": f"pytest {select_args}".rstrip(),
                         "why": "The same selection, made by warpline's pytest plugin "
                                "(needs warpline installed where pytest runs)."})
    return commands


def map_counts(ctx: Any, selection: Selection, locators: list[str]) -> dict[str, int]:
    """locator -> how many tests the selection's map saw execute it (none without a map;
    an entity the map does not hold is left out: unknown, not zero)."""
    choice = selection.choice
    if choice is None or not locators:
        return {}
    return test_counts(ctx.store, choice.row.id, locators)


def select_flag(rev_range: str | None) -> str:
    """The ``--warpline-select`` flag reproducing a reverify call's range."""
    return "--warpline-select" + (f"={shlex.quote(rev_range)}" if rev_range else "")
