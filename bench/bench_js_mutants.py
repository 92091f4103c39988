"""JavaScript/TypeScript mutants on a real suite: is every failing test in the selection?

    python bench/bench_js_mutants.py CLONE [--mutants 20] [--seed 37] [--jobs 2]
    python bench/bench_js_mutants.py --tiny    # a small mocha project, 2 mutants

CLONE is a corpus clone with its packages installed (``npm install``; express: mocha,
got: AVA through tsx, immer: Vitest with its ``@vitest/coverage-v8`` at Vitest's version,
luxon: Jest with Babel). The runner is the one its package uses (``js_detect``).

1. the whole suite runs plainly (the truth's baseline: tests failing before any mutant are
   left out of every mutant's failures), then under warpline's recording (the JS row's
   map: mocha per test, the others per test file), timed in the same run: the recording
   overhead; the map is stored as ``warpline record-tests`` stores it;
2. functions and methods of non-test files the map saw the suite execute are drawn
   (``--seed``) and broken one at a time, a thrown error and a wrong return value
   alternating (``_js_mutant.mutate``), each committed;
3. per mutant the whole suite runs (the truth: its failing tests), and ``reverify
   HEAD~1..HEAD`` answers map-first and static (the map hidden); a failing test is held
   when the selection names it or its file;
4. until ``--mutants`` mutants made a test fail (unnoticed mutants are counted apart).

Printed (JSON): per mutant, the summary (mutants with every failing test selected,
map-first and static; recall over failing tests; each selection's mean share of the suite
and its ratio to the coverage truth: the tests the map saw execute the function), the
map's size and the recording ratio.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _js_mutant import TIMED_OUT, failing, mutate
from _selection_eval import held, mutant_parser


def git(root: Path, *args: str) -> str:
    # The clone's own hooks (luxon's husky runs lint-staged on each commit) stay off.
    return subprocess.run(["git", "-c", "user.name=bench", "-c",
                           "user.email=bench@example.invalid", "-c", "core.hooksPath=/dev/null",
                           *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def record(root: Path, jobs: int) -> tuple[Any, float, float]:
    """The runner's map recorded and stored: (the map, wall, children's CPU)."""
    import pygit2

    from warpline.runners.js_detect import projects
    from warpline.runners.js_record import record_runner
    from warpline.service.shared.context import open_context
    from warpline.store.testmaps import write_map

    runner = next(p.runner for p in projects(root) if p.runner)
    repo = pygit2.Repository(str(root))
    before, start = os.times(), time.perf_counter()
    recorded, _, _, partial = record_runner(root, repo, repo.head.peel(pygit2.Commit), jobs,
                                            runner)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = after.children_user - before.children_user + after.children_system \
        - before.children_system
    if partial:
        print(f"partial map: {partial[:3]}", file=sys.stderr)
    with open_context(str(root), root) as ctx:
        write_map(ctx.store, recorded)
    return recorded, wall, cpu


def selection(root: Path, static: bool) -> tuple[list[str], str]:
    from warpline.registry import call_tool
    from warpline.service.testing import testselect

    original = getattr(testselect, "choose_map")  # noqa: B009 (the name it calls, swapped)
    if static:
        setattr(testselect, "choose_map", lambda *args, **kwargs: None)  # noqa: B010
    try:
        env = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    finally:
        setattr(testselect, "choose_map", original)  # noqa: B010
    chosen = env["data"]["selection"]
    return list(chosen["tests"]), str(chosen["basis"])


def holds(chosen: list[str], test_id: str) -> bool:
    """A test is in a selection naming it or its file."""
    return test_id in chosen or test_id.split("::", 1)[0] in chosen


def _span(root: Path, locator: str, path: str) -> tuple[int, int] | None:
    import pygit2

    from warpline.git.parsecache import TreeFiles
    from warpline.lang import language_of

    lang = language_of(path)
    if lang is None:
        return None
    repo = pygit2.Repository(str(root))
    files = TreeFiles(repo, repo.revparse_single("HEAD").peel(pygit2.Commit).tree)
    module = lang.module(path, files)
    read = lang.read((root / path).read_bytes())
    if module is None or read is None:
        return None
    for entity in read.entities:
        if lang.locator(entity.key, module) == locator:
            return entity.spans[0][0], entity.spans[-1][1]
    return None


def candidates(recorded: Any, seed: int) -> list[tuple[str, str]]:
    from warpline.runners.js_discovery import is_js_test_path

    covered: dict[str, set[str]] = {}
    for test_id, locators in recorded.hits.items():
        for locator in locators:
            covered.setdefault(locator, set()).add(test_id)
    found = sorted((loc, recorded.entity_paths[loc]) for loc in covered
                   if loc.startswith(("ts:function:", "ts:method:"))
                   and not is_js_test_path(recorded.entity_paths.get(loc, ""))
                   and "/examples/" not in "/" + recorded.entity_paths.get(loc, ""))
    random.Random(seed).shuffle(found)
    return found


def run(root: Path, wanted: int, seed: int, jobs: int, run_timeout: int = 1800
        ) -> dict[str, Any]:
    os.environ["WARPLINE_EDGE_SOURCES"] = "builtin"
    os.environ.setdefault("WARPLINE_BACKGROUND_BACKFILL", "0")  # no history backfill beside
    already, suite_ran, _, plain_wall = failing(root, run_timeout)
    before = os.times()
    # The second, warm run is the one timed.
    already, suite_ran, _, plain_wall = failing(root, run_timeout)
    after = os.times()
    plain_cpu = after.children_user - before.children_user + after.children_system \
        - before.children_system
    recorded, record_wall, record_cpu = record(root, jobs)
    from warpline.testmap.wire import encode

    map_bytes = len(encode(recorded, int(time.time())))
    base = git(root, "rev-parse", "HEAD").strip()
    covered: dict[str, set[str]] = {}
    for test_id, locators in recorded.hits.items():
        for locator in locators:
            covered.setdefault(locator, set()).add(test_id)
    rows: list[dict[str, Any]] = []
    unnoticed = 0
    timed_out: list[str] = []
    kinds = ("throw", "wrong-return")
    for locator, path in candidates(recorded, seed):
        if len(rows) >= wanted:
            break
        span = _span(root, locator, path)
        kind = kinds[len(rows) % 2]
        mutated = mutate((root / path).read_bytes(), path, *span, kind) if span else None
        if mutated is None:
            continue
        (root / path).write_bytes(mutated)
        git(root, "commit", "-q", "-am", f"mutant {locator}")
        try:
            truth, _, status, _ = failing(root, run_timeout)
            if status == TIMED_OUT:  # past --run-timeout: no whole report, no truth
                timed_out.append(locator)
                continue
            truth -= already
            if not truth:
                unnoticed += 1
                continue
            chosen, basis = selection(root, static=False)
            static, static_basis = selection(root, static=True)
            cover = sorted(covered.get(locator, set()))
            rows.append({
                "locator": locator, "mutant": kind, "failing": len(truth), "basis": basis,
                "static_basis": static_basis,
                # Sizes in the suite's tests (a file's id: every test the suite ran in it).
                "map_selected": sum(holds(chosen, t) for t in suite_ran),
                "static_selected": sum(holds(static, t) for t in suite_ran),
                "covering": sum(holds(cover, t) for t in suite_ran),
                "map_held": sum(holds(chosen, t) for t in truth),
                "static_held": sum(holds(static, t) for t in truth),
                "map_missed": sorted(t for t in truth if not holds(chosen, t))[:5],
                "static_missed": sorted(t for t in truth if not holds(static, t))[:5]})
            print(json.dumps(rows[-1]), file=sys.stderr)
        finally:
            git(root, "reset", "-q", "--hard", base)
    size = max(len(suite_ran), 1)
    killed = rows

    def mean(key: str) -> float | None:
        return round(statistics.mean(r[key] / size for r in killed), 3) if killed else None

    return {"suite_tests_ran": len(suite_ran), "map_tests": size,
            "failing_before_mutants": sorted(already)[:20], "mutants": rows,
            "unnoticed_mutants": unnoticed, "timed_out_mutants": timed_out,
            "map_links": sum(len(v) for v in covered.values()),
            "map_compressed_bytes": map_bytes, "map_partial": list(recorded.partial),
            "summary": {
                "killed": len(killed),
                "map_all_failing_selected": held(killed, "map_held")[0],
                "static_all_failing_selected": held(killed, "static_held")[0],
                "map_recall": held(killed, "map_held")[1],
                "static_recall": held(killed, "static_held")[1],
                "map_share": mean("map_selected"), "static_share": mean("static_selected"),
                "covering_share": mean("covering"),
                "map_to_covering": round(sum(r["map_selected"] for r in killed)
                                         / max(sum(r["covering"] for r in killed), 1), 2),
                "static_to_covering": round(sum(r["static_selected"] for r in killed)
                                            / max(sum(r["covering"] for r in killed), 1), 2),
                "plain_wall_s": round(plain_wall, 2), "plain_cpu_s": round(plain_cpu, 2),
                "record_wall_s": round(record_wall, 2), "record_cpu_s": round(record_cpu, 2),
                "record_wall_ratio": round(record_wall / plain_wall, 2) if plain_wall else None,
                "record_cpu_ratio": round(record_cpu / plain_cpu, 2) if plain_cpu else None}}


def tiny_clone(root: Path) -> Path:
    """The tests' small mocha project, its runners from the tests' pinned cache."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.jsfixture import TINY_PROJECT, runners_cache

    for name, text in TINY_PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tiny")
    (root / "node_modules").symlink_to(runners_cache(), target_is_directory=True)
    return root


def main(argv: list[str] | None = None) -> int:
    parser = mutant_parser(__doc__)
    parser.add_argument("--run-timeout", type=int, default=1800,
                        help="seconds a whole-suite run may take; past it the runner's process"
                             " group is killed and the tests it reported so far count")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="warpline-jsmutants-") as scratch:
        if args.tiny:
            root, wanted = tiny_clone(Path(scratch)), 2
        elif args.clone is not None:
            root, wanted = args.clone.resolve(), args.mutants
        else:
            parser.error("a clone or --tiny")
        print(json.dumps(run(root, wanted, args.seed, args.jobs, args.run_timeout),
                         indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
