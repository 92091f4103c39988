"""The worklist's tests: map-first selection wired into ``reverify``.

``reverify`` computes the static suggestions of its items; this module turns them and the
test map into the one selection (``data.selection``, its ``tests`` are what every output
runs), the per-item suggestions of changed entities the map answers for, and the command
running the selection: one per runner (``warpline.runners``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpline.runners import RUNNERS, Runner, by_name, partition, used_for
from warpline.runners.row import suite_command
from warpline.service.impact.seeds import Seed
from warpline.service.impact.suggest import test_command
from warpline.service.testing import filekinds
from warpline.service.testing.static_basis import StaticBasis
from warpline.service.testing.testselect import Selection, named, select, static_entries
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


def _map_entries(selection: Selection, locator: str, root: Path) -> list[dict[str, Any]]:
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
    return [{"kind": "test", "command": test_command(root, t), "test_id": t, "test": None,
             "distance": None, "callers": [], "why": cached if t in through else seen}
            for t in shown]


def worklist_tests(ctx: Any, graph: Any, seeds: list[Seed], items: list[Any],
                   per_item: dict[str, list[dict[str, Any]]],
                   select_range: str | None, base: str | None = None) -> WorklistTests:
    """The one selection of a worklist (``testselect.select``) and one command per runner
    the change's tests run under (``warpline.runners.used_for``: never a runner the
    repository does not use). Code no row's runner tests gets no command, and a warning
    names its own ecosystem's (``Runners``)."""
    kinds = filekinds.split(ctx.root, seeds)
    seeds = kinds.active
    whole = kinds.whole_suites()
    static = _by_seed(items, per_item)
    unlisted = [s.locator for s in seeds if s.locator not in static]  # filtered away
    if unlisted:
        static.update(static_entries(graph, unlisted, ctx.root))
    basis = StaticBasis(graph, static, {s.locator: s.path for s in seeds}, ctx.root)
    runners = Runners.of(ctx.root, seeds)
    runners.used += [r for r in RUNNERS if r.name in whole and r not in runners.used]
    selection = select(ctx.store, ctx.repo, ctx.root, basis, runners.seeds, base) \
        if runners.seeds else Selection(basis="none")
    selection.warnings += runners.warnings() + kinds.warnings()
    selection.non_code = kinds.wire()
    out = dict(per_item)
    for locator in kinds.kinds:
        out[locator] = kinds.inspection(locator)
    if selection.choice is not None:
        for locator in selection.from_map:
            if locator in out:
                out[locator] = _map_entries(selection, locator, ctx.root)
    if kinds.kinds and not seeds and not whole:
        selection.nothing_to_run = True  # documentation and CI configuration only
        return WorklistTests(selection, out, [])
    commands = commands_of(ctx.root, selection, select_range, runners.used, whole)
    return WorklistTests(selection, out, commands)


@dataclass(slots=True)
class Runners:
    """The runners the change's tests run under (``warpline.runners.used_for``), the changes
    they select for, and the other languages' own whole-suite commands (language ->
    command): code no row's runner tests."""

    used: list[Runner]
    seeds: list[Seed]
    others: dict[str, str]

    @classmethod
    def of(cls, root: Path, seeds: list[Seed]) -> Runners:
        from warpline.lang import of_change

        language: dict[str, str | None] = {}
        for seed in seeds:
            lang = of_change(seed.locator, seed.path)
            language[seed.locator] = lang.name if lang is not None else None
        used = used_for(root, language.values())
        tested = {name for runner in used for name in runner.languages}
        # A file no language row reads (a config, a data file) goes to every runner used.
        mine = [s for s in seeds if language[s.locator] is None or language[s.locator] in tested]
        others: dict[str, str] = {}
        for seed in seeds:
            name = language[seed.locator]
            if name is not None and name not in tested:
                lang = of_change(seed.locator, seed.path)
                if lang is not None and lang.test_command:
                    others[lang.wire_name] = lang.test_command
        return cls(used, mine if used else [], others)

    def warnings(self) -> list[str]:
        if not self.others:
            return []
        grouped: dict[str, list[str]] = {}  # rows sharing languages named together
        for runner in RUNNERS:
            grouped.setdefault("/".join(runner.languages).capitalize(), []).append(runner.name)
        known = ", ".join(f"{langs} ({', '.join(names)})" for langs, names in grouped.items())
        return [f"warpline selects tests for {known} only so far: no command here "
                f"runs the changed {', '.join(sorted(self.others))} code. Run the project's "
                "own tests for it ("
                + "; ".join(f"{name}: `{command}`" for name, command in sorted(self.others.items()))
                + ")."]


def commands_of(root: Path, selection: Selection, select_range: str | None,
                used: list[Runner] | None = None,
                whole: dict[str, str] | None = None) -> list[dict[str, str]]:
    """``next_actions.commands`` for the selection: one command per runner ``used``
    (default: the rows owning its tests, else the languages' default runners), each
    running exactly its share of ``selection.tests`` (its whole suite when no test is
    known), in the table's order; then the plugin's own way to the same selection. Sets
    ``selection.runs`` (the wire's ``selection.runners``). ``whole``: runner name -> why
    its whole suite runs whatever was selected (configuration its tests read changed);
    its ids leave ``selection.tests``, so every output runs the same."""
    whole = whole or {}
    ids = selection.tests
    shares = partition(ids, root)
    if whole:
        forced = {t for name in whole for t in shares.get(name, [])}
        ids = selection.tests = [t for t in ids if t not in forced]
    if used is None:
        used = [r for r in RUNNERS if r.name in shares] or \
            [r for r in RUNNERS if r.language_default]
    if selection.basis == "static":
        why = selection.static_why or "Runs the tests the static graph names."
    elif selection.basis in ("map", "mixed"):
        source = "the test map" if selection.basis == "map" else \
            "the test map, the static graph and the import floor"
        why = f"Runs the {len(ids)} tests selected from {source} for the changed entities."
    else:
        why = ""
    commands: list[dict[str, str]] = []
    runs: list[dict[str, Any]] = []
    dropped: list[str] = []
    for runner in used:
        if runner.name in whole:
            suite = suite_command(runner, root)
            runs.append({"runner": runner.name, "tests": [], "command": suite,
                         "whole_suite": True})
            commands.append({"command": suite, "why": whole[runner.name]})
            continue
        share = shares.get(runner.name, [])
        own = runner.collectable(root, share) if share else []
        kept = set(own)
        dropped += [t for t in share if t not in kept]
        if share and not own:
            continue  # every test selected for it is gone: nothing of it to run
        built = runner.command(root, own) if own else None
        if built is None:
            suite = suite_command(runner, root)
            runs.append({"runner": runner.name, "tests": [], "command": suite,
                         "whole_suite": True})
            commands.append({"command": suite,
                             "why": "No test is known to exercise the changed entities: "
                                    "run the whole suite."})
            continue
        runs.append({"runner": runner.name, "tests": own, "command": built[0],
                     "whole_suite": False})
        widened = f" (more than {runner.max_ids} ids: their whole files)" \
            if selection.widened or built[1] else ""
        commands.append({"command": built[0], "why": why + widened})
    if dropped:
        _drop(selection, dropped)
    selection.runs = runs
    for run in runs:
        row = by_name(run["runner"])
        if select_range is not None and run["tests"] and row is not None \
                and row.select_command is not None:
            commands.append({"command": row.select_command(select_range),
                             "why": f"The same selection, made by warpline's {row.name} "
                                    f"plugin (needs warpline installed where {row.name} "
                                    "runs)."})
    return commands


def _drop(selection: Selection, dropped: list[str]) -> None:
    """Leaves ``dropped`` out of the selection (what every output runs) and says so."""
    gone = set(dropped)
    selection.tests = [t for t in selection.tests if t not in gone]
    selection.dropped = dropped
    left = "" if selection.tests else " Nothing selected is left to run."
    selection.warnings.append(
        f"{len(dropped)} selected tests are left out of the command ({named(dropped)}): "
        "they no longer exist in the work tree (deleted in the range or since), or their "
        f"files are no test files their runner collects (helpers, conftest files).{left}")


def map_counts(ctx: Any, selection: Selection, locators: list[str]) -> dict[str, int]:
    """locator -> how many tests the selection's map saw execute it (none without a map;
    an entity the map does not hold is left out: unknown, not zero)."""
    choice = selection.choice
    if choice is None or not locators:
        return {}
    return test_counts(ctx.store, choice.row.id, locators)
