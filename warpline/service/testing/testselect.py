"""Map-first test selection: which tests to run for a set of changed entities.

With a test map (``warpline.store.testmaps``, chosen by ``service.shared.choice``), the union of

1. the tests the map saw execute any changed entity;
2. the tests whose own code changed: a changed test function runs itself, a changed test
   module (its imports, module-level fixtures, marks) runs its whole file;
3. the tests the map cannot know: tests in files changed since the map's commit that the
   map does not hold (new tests, or tests the recording did not run);
4. for changed entities the map cannot answer for (new code, code no recorded test
   executed, non-Python files), the static basis: the graph's tests and the import floor
   (``static_basis``);
5. for changed definitions whose results are cached (``functools.cache`` and the like),
   the tests that reach them through their callers (``cached_widen``).

Without a map: rule 2 and the static basis for every changed entity. This object is the one
selection: ``reverify``'s command, its formats, ``warpline ci`` and ``pytest
--warpline-select`` all run ``tests``.

``basis`` names what answered: ``map`` (rules 1-3 only), ``mixed`` (a map was consulted and
the static basis answered for some or all changed entities), ``static`` (no usable map),
``none`` (no test at all). Never an empty list with nothing said: every changed entity left
without a test is named in a warning, with the whole suite offered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from warpline.git.lookups import ancestry
from warpline.git.worktree import DiskFiles
from warpline.lang import PYTHON, language_of
from warpline.lang.entities import MODULE_KEY
from warpline.lang.locators import dotted_module, entity_locator
from warpline.lang.pyentities import parse_entities
from warpline.runners import RUNNERS, by_name, changed_tests, owner_of, partition, test_nodes
from warpline.runners.pytest import PYTEST
from warpline.service.impact import suggest
from warpline.service.impact.seeds import Seed
from warpline.service.shared.choice import Choice, choose_map
from warpline.service.shared.envelope import iso_z
from warpline.service.testing import row_rules
from warpline.service.testing.cached_widen import CachedWidening, warning, widen
from warpline.service.testing.static_basis import StaticBasis
from warpline.store.db import Store
from warpline.store.testmaps import MapRow, known_entities, map_tests, tests_executing

# How a map is recorded: every row's way (``Runner.record_command``).
RECORD_COMMAND = PYTEST.record_command
MAX_NAMED = 5
_MAX_TEST_FILE_BYTES = 4 * 1024 * 1024


@dataclass(slots=True)
class Selection:
    """The tests to re-run, the basis they were chosen on, and what no test covers."""
    basis: str
    tests: list[str] = field(default_factory=list)
    choice: Choice[MapRow] | None = None
    tests_known: int | None = None
    from_map: list[str] = field(default_factory=list)  # changed locators answered by the map
    from_static: list[str] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)
    new_tests: list[str] = field(default_factory=list)
    per_seed: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    floor_files: int = 0
    widened: bool = False  # past a runner's ``max_ids`` ids: its whole files
    static_why: str = ""
    cached: list[CachedWidening] = field(default_factory=list)
    cosmetic: list[str] = field(default_factory=list)  # changed only cosmetically: no tests
    cosmetic_only: bool = False  # every change is cosmetic: nothing to run
    runs: list[dict[str, Any]] = field(default_factory=list)  # per runner: tests, command
    dropped: list[str] = field(default_factory=list)  # selected, but gone or not collected
    non_code: list[dict[str, Any]] = field(default_factory=list)  # filekinds.NonCode.wire
    nothing_to_run: bool = False  # changes exist, none asks for a test

    def wire(self) -> dict[str, Any]:
        choice = self.choice
        row = choice.row if choice else None
        return {
            "basis": self.basis,
            "map_commit": row.commit_sha if row else None,
            "map_commits_behind": choice.commits_behind if choice else None,
            "tests_selected": len(self.tests),
            "tests_known": self.tests_known,
            "map_id": row.id if row else None,
            "map_recorded_at": iso_z(row.recorded_at) if row else None,
            "map_entities_changed_since": choice.entities_changed_since if choice else None,
            "map_partial": bool(row.partial) if row else None,
            "entities_from_map": len(self.from_map),
            "entities_from_static": len(self.from_static),
            "entities_without_tests": self.uncovered[:50],
            "new_tests": len(self.new_tests),
            "tests": list(self.tests),
            "floor_files": self.floor_files,
            "cached_entities": [c.wire() for c in self.cached],
            "cosmetic_entities": self.cosmetic[:50],
            "cosmetic_only": self.cosmetic_only,
            "runners": [dict(run) for run in self.runs],
            "dropped_tests": self.dropped[:50],
            "non_code": list(self.non_code),
            "nothing_to_run": self.nothing_to_run or self.cosmetic_only or bool(
                self.dropped and not self.tests and not any(r["whole_suite"]
                                                            for r in self.runs)),
        }

    def finish(self, chosen: dict[str, None]) -> None:
        """``tests`` from the chosen ids; a runner's whole files past its ``max_ids`` (more
        tests, never fewer), so every output runs exactly these."""
        tests = list(chosen)
        shares = partition(tests)
        for name, own in shares.items():
            runner = by_name(name)
            if runner is not None and len(own) > runner.max_ids:
                mine = set(own)
                tests = list(dict.fromkeys(runner.test_file(t) if t in mine else t
                                           for t in tests))
                self.widened = True
        self.tests = tests


def graph_test_count(graph: nx.DiGraph | None) -> int:
    if graph is None:
        return 0
    cached = graph.graph.get("warpline_test_count")
    if cached is None:
        cached = len(test_nodes(graph))
        graph.graph["warpline_test_count"] = cached
    return int(cached)


def static_entries(graph: nx.DiGraph | None, locators: list[str],
                   root: Path) -> dict[str, list[dict[str, Any]]]:
    labels = suggest.nearest_tests(graph, locators) if graph is not None else {}
    return {loc: suggest.suggestions(graph, loc, labels.get(loc, []), root) for loc in locators}


def select(store: Store, repo: Any, root: Path, static: StaticBasis,
           seeds: list[Seed], base: str | None = None) -> Selection:
    """The selection for ``seeds``; ``static`` answers where no map does. ``base``: the
    range's base commit (a pull request's): a map recorded there is current for it."""
    choice = choose_map(store, repo)
    if choice is None:
        return _static_only(static, seeds, root)
    row = choice.row
    locators = [s.locator for s in seeds]
    known = known_entities(store, row.id, locators)
    modules = {s.locator: _module_of(s, root) for s in seeds}
    executed = tests_executing(store, row.id,
                               [*locators, *(m for m in modules.values() if m is not None)])
    out = Selection(basis="map", choice=choice, tests_known=row.test_count)
    chosen: dict[str, None] = {}
    fallback: list[Seed] = []
    for seed in seeds:
        own = _own_tests(seed, root, static.graph) or row_rules.own_tests(static.graph, seed)
        mapped = executed.get(seed.locator, [])
        tests = own + mapped
        if mapped or own:
            out.from_map.append(seed.locator)
        else:
            # Code no recorded test executed. If it ran at import (a registration, a
            # decorator factory), the tests that ran its file's code depend on it too.
            module = modules[seed.locator]
            tests = executed.get(module, []) if known.get(seed.locator) and module else []
            fallback.append(seed)
        out.per_seed[seed.locator] = tests
        chosen.update(dict.fromkeys(tests))
    answer = static.answer([s.locator for s in fallback])
    chosen.update(dict.fromkeys(answer.tests))
    out.floor_files, out.static_why = answer.floor_files, answer.why
    out.warnings.extend(answer.warnings)
    for seed in fallback:
        answered = out.per_seed[seed.locator] or static.covered(seed.locator)
        (out.from_static if answered else out.uncovered).append(seed.locator)
    widened_static = _widen_cached(out, chosen, store, repo, root, static, seeds)
    _widen_rows(out, chosen, store, static, seeds)
    known_tests = {node_id for node_id, _ in map_tests(store, row.id)}
    out.new_tests = [t for t in _tests_in_changed_files(root, choice.changed_paths_since,
                                                      static.graph)
                     if not _covered(t, known_tests)]
    out.new_tests += row_rules.new_test_files(static.graph, choice.changed_paths_since,
                                              known_tests)
    chosen.update(dict.fromkeys(out.new_tests))
    out.finish(chosen)
    # A map was consulted: what it could not answer came from the static basis (mixed),
    # never "static", which means no usable map.
    out.basis = "none" if not out.tests else \
        "mixed" if out.from_static or widened_static else "map"
    _map_warnings(out, known, _behind_base(repo, choice, base))
    _uncovered_warning(out, _rows_of(seeds, root), root)
    return out


def _behind_base(repo: Any, choice: Choice[MapRow], base: str | None) -> int | None:
    """Commits from the map's commit to the range's ``base`` when the map is it or an
    ancestor of it (0: the map is the base's, as current as a map for this range can be);
    None without a base or when the map is not behind it."""
    if base is None or not choice.is_ancestor or base not in repo:
        return None
    found, behind = ancestry(repo, repo[base].id, choice.row.commit_sha)
    return behind if found else None


def _widen_cached(out: Selection, chosen: dict[str, None], store: Store, repo: Any, root: Path,
                  static: StaticBasis, seeds: list[Seed]) -> bool:
    """Adds the callers' tests of every changed cached definition (``cached_widen``);
    True when the static graph added a test the map had not."""
    choice = out.choice
    assert choice is not None
    out.cached = widen(store, repo, root, static.graph, seeds, choice.row.id,
                       choice.row.commit_sha)
    added_static = False
    for widened in out.cached:
        added_static |= any(t not in chosen for t in widened.static_tests)
        tests = [*widened.map_tests, *widened.static_tests]
        chosen.update(dict.fromkeys(tests))
        mine = out.per_seed.setdefault(widened.locator, [])
        widened.added = [t for t in dict.fromkeys(tests) if t not in mine]
        mine.extend(widened.added)
        out.warnings.append(warning(widened))
    return added_static


def _widen_rows(out: Selection, chosen: dict[str, None], store: Store, static: StaticBasis,
                seeds: list[Seed]) -> None:
    """The map's tests of definitions a row says depend on a changed one though the map
    cannot see it (``row_rules.widen_targets``: Java's static initializers), said."""
    choice = out.choice
    assert choice is not None
    targets = row_rules.widen_targets(static.graph, seeds)
    if not targets:
        return
    executed = tests_executing(store, choice.row.id,
                               sorted({t for found in targets.values() for t in found}))
    for locator, found in targets.items():
        tests = list(dict.fromkeys(t for target in found for t in executed.get(target, [])))
        mine = out.per_seed.setdefault(locator, [])
        added = [t for t in tests if t not in mine]
        if not added:
            continue
        mine.extend(added)
        chosen.update(dict.fromkeys(added))
        out.warnings.append(
            f"{locator} is called from the initializers of {named(found)}: a static "
            "initializer runs once per JVM, so the map saw only the first test reach it; "
            f"the {len(added)} tests the map saw run those classes are selected too.")


def _module_of(seed: Seed, root: Path) -> str | None:
    lang = language_of(seed.path) if seed.path else None
    if lang is not None and lang is not PYTHON and seed.path:
        # Another row's module (a Go package): named from the work tree's manifests.
        module = lang.module(seed.path, DiskFiles(str(root)))
        return lang.locator(MODULE_KEY, module) if module else None
    dotted = dotted_module(seed.path) if seed.path else None
    return entity_locator("module", dotted, "") if dotted else None


def _row_tests(seed: Seed, root: Path) -> list[str] | None:
    """A changed test of a runner that names a file's tests itself (``file_tests``): the
    test function runs itself; the file's own lines (its package-level code) run its file.
    None: the file is no such runner's."""
    path = seed.path or ""
    runner = owner_of(path) if path else None
    if runner is None or runner.file_tests is None:
        return None
    if not runner.is_test_file(path):
        return []
    lang = language_of(path)
    module = _module_of(seed, root)
    if module is not None and seed.locator == module:
        return [path]
    if lang is None:
        return []
    return [i for i in runner.file_tests(root, path)
            if seed.locator.endswith(
                "." + i.split("::", 1)[-1].split("/", 1)[0].replace("::", "."))]


def _own_tests(seed: Seed, root: Path, graph: nx.DiGraph | None) -> list[str]:
    """What a change to a test runs by itself, as its runner's row says: a row naming a
    file's tests itself (``_row_tests``), else ``runners.changed_tests`` (a changed test
    function runs itself; a changed test module its file; a changed ``conftest.py`` module
    its directory)."""
    row = _row_tests(seed, root)
    if row is not None:
        return row
    return changed_tests(graph, seed.locator, seed.path, seed.kind)


def _covered(node_id: str, known: set[str]) -> bool:
    """Whether the map holds the test (any parametrization of it)."""
    if node_id in known:
        return True
    prefix = node_id + "["
    return any(k.startswith(prefix) for k in known)


def _tests_in_changed_files(root: Path, paths: frozenset[str],
                            graph: nx.DiGraph | None) -> list[str]:
    """The tests defined, in the working tree, in ``paths``' test files (their runner's
    ids, ``runners.changed_tests``; Python's files are read for their definitions)."""
    out: list[str] = []
    for path in sorted(paths):
        owner = owner_of(path)
        if owner is not None and owner.file_tests is not None:
            if owner.is_test_file(path):
                out.extend(owner.file_tests(root, path))
            continue
        dotted = dotted_module(path)
        if dotted is None or owner is None or not owner.is_test_file(path):
            continue
        disk = root / path
        try:
            if not disk.is_file() or disk.is_symlink() or \
                    disk.stat().st_size > _MAX_TEST_FILE_BYTES:
                continue
            parsed = parse_entities(disk.read_bytes())
        except OSError:
            continue
        if parsed is None:  # unparsable now: run the file, its runner will say why
            out += owner.file_runs(path)
            continue
        for entity in parsed.entities:
            if entity.kind == "function":
                out += changed_tests(graph, entity_locator("function", dotted, entity.qualname),
                                     path, "function")
    return out


def named(locators: list[str]) -> str:
    shown = ", ".join(locators[:MAX_NAMED])
    return shown + (f" and {len(locators) - MAX_NAMED} more" if len(locators) > MAX_NAMED else "")


def _record_command(row: MapRow) -> str:
    """How the map's runner records a map again (a row warpline runs itself names its
    maps' source ``<runner>-…``: Go's ``go-cover``)."""
    return next((r.record_command for r in RUNNERS if r.record is not None
                 and row.source.startswith(f"{r.name}-")), RECORD_COMMAND)


def _map_warnings(out: Selection, known: dict[str, bool], behind_base: int | None) -> None:
    choice = out.choice
    assert choice is not None
    row = choice.row
    record = _record_command(row)
    if behind_base == 0:
        pass  # the range's base's map (a pull request's): its own commits are the change
    elif behind_base is not None:
        out.warnings.append(
            f"The test map is from {row.commit_sha[:12]}, {behind_base} commits behind the "
            "range's base: what the tests executed may have changed in them. Record a map "
            f"on the base branch: `{record}`.")
    elif not choice.is_ancestor:
        out.warnings.append(
            f"The test map ({row.commit_sha[:12]}) was recorded on a commit that is not an "
            "ancestor of HEAD (rebased or another branch): tests may have moved. Record a new "
            f"map: `{record}`.")
    elif choice.commits_behind or choice.entities_changed_since:
        out.warnings.append(
            f"The test map is from {row.commit_sha[:12]}, {choice.commits_behind} commits "
            f"behind HEAD; {choice.entities_changed_since} entities changed since, so what "
            f"their tests execute may differ. Refresh it: `{record}`.")
    if row.dirty_paths:
        out.warnings.append(
            f"The test map was recorded with {len(row.dirty_paths)} uncommitted Python files "
            f"({named(row.dirty_paths)}).")
    if row.partial:
        out.warnings.append(
            f"The test map holds {row.test_count} tests from a partial run "
            f"({'; '.join(row.partial)}): tests it never ran are unknown to it. Record the "
            f"whole suite: `{record}`.")
    if row.failed_tests:
        out.warnings.append(f"{row.failed_tests} tests failed while the map was recorded: "
                            "what they executed stops where they failed.")
    if out.from_static:
        import_only = [loc for loc in out.from_static if known.get(loc)]
        out.warnings.append(
            f"No recorded test executed {len(out.from_static)} changed entities "
            f"({named(out.from_static)}): their tests come from the static graph and the "
            "test files importing their modules, which may miss calls made through "
            "frameworks, fixtures and registries."
            + (f" {len(import_only)} of them ran only at import time: the tests that ran "
               "code of their files are selected too." if import_only else ""))
    if out.new_tests:
        out.warnings.append(f"{len(out.new_tests)} tests are not in the map (new since it or "
                            "never run while recording): they are selected too.")


def _rows_of(seeds: list[Seed], root: Path) -> list[Any]:
    """The runners the changed entities' tests run under (pytest when none is used)."""
    from warpline.runners import used_for

    languages = {(lang.name if (lang := language_of(s.path)) else None) if s.path else None
                 for s in seeds}
    return used_for(root, languages) or [PYTEST]


def _uncovered_warning(out: Selection, rows: list[Any], root: Path) -> None:
    if not out.uncovered:
        return
    from warpline.runners.row import suite_command

    suites = " / ".join(f"`{suite_command(r, root)}`" for r in rows)
    # With tests selected, the command runs them: the words must not say it runs the suite.
    advice = (f"The selection does not cover them; the whole suite ({suites}) would."
              if out.tests else f"Run the whole suite ({suites}).")
    out.warnings.append(
        f"No test is known to exercise {len(out.uncovered)} changed entities "
        f"({named(out.uncovered)}): neither a test map nor the static graph has one, and "
        f"no test file imports their modules. {advice}")


def _static_only(static: StaticBasis, seeds: list[Seed], root: Path) -> Selection:
    out = Selection(basis="static", tests_known=graph_test_count(static.graph)
                    if static.graph is not None else None)
    chosen: dict[str, None] = {}
    for seed in seeds:
        own = _own_tests(seed, root, static.graph) or row_rules.own_tests(static.graph, seed)
        answered = bool(own) or static.covered(seed.locator)
        (out.from_static if answered else out.uncovered).append(seed.locator)
        out.per_seed[seed.locator] = own
        chosen.update(dict.fromkeys(own))
    answer = static.answer([s.locator for s in seeds])
    chosen.update(dict.fromkeys(answer.tests))
    out.floor_files, out.static_why = answer.floor_files, answer.why
    out.warnings.extend(answer.warnings)
    out.finish(chosen)
    if not out.tests:
        out.basis = "none"
    record = row_rules.record_command(seeds, RECORD_COMMAND)
    python = record == RECORD_COMMAND
    out.warnings.append(
        "No test map: the tests were chosen from the static call graph, which misses calls "
        "made through frameworks, fixtures, properties and registries. Record a map with "
        f"`{record}`"
        + (" (or `warpline import-coverage .coverage` after `pytest --cov "
           "--cov-context=test`)." if python else " (or `warpline import-coverage` from the "
           "runner's own per-test coverage data)."))
    _uncovered_warning(out, _rows_of(seeds, root), root)
    return out
