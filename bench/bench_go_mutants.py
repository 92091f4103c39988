"""Go mutants on a real suite: is every failing test in the selection, map-first and static?

    python bench/bench_go_mutants.py CLONE [--mutants 20] [--seed 37] [--jobs 2]
    python bench/bench_go_mutants.py --tiny          # the tests' fixture module, 2 mutants

On a clone whose root is a Go module (cobra: ``git clone shared/corpora/cobra.bundle``):

1. the whole suite's map is recorded at the base commit (``warpline record-tests``: one
   coverage profile per test), timed against a plain ``go test -count=1 ./...`` in the same
   run (the recording overhead), and the edge snapshot is captured;
2. functions and methods of non-test files that the map saw the suite execute are drawn
   (``--seed``) and broken one at a time (``_go_mutant.mutate``: a wrong return value where
   the result is a lone ``bool``/``string``/``int``, else a ``panic``), each committed;
3. per mutant, ``reverify HEAD~1..HEAD`` answers twice in process: map-first (as it is) and
   static (the map hidden, as on a clone that has none); the whole suite runs, each test
   in a process of its own (a panic ends a Go test binary, hiding every later failure), and
   every failing top-level test is looked for in each selection;
4. until ``--mutants`` mutants have made at least one test fail (a mutant no test notices
   says nothing about a selection and is counted apart).

Printed: per mutant its kind, failing tests, the two selections' sizes and misses; the
summary: mutants with every failing test selected (map-first, static), static recall over
failing tests, each selection's mean share of the suite and its ratio to the coverage truth
(the tests the map saw execute the mutated function), map size and the recording ratio.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _go_mutant import failing, mutate
from _selection_eval import held, mutant_parser, reverify_selection
from _selection_eval import timed as timed_run

BENCH = Path(__file__).resolve().parent


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=bench", "-c",
                           "user.email=bench@example.invalid", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def go_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPLINE_")}
    env.setdefault("GOFLAGS", "-mod=mod")
    env["WARPLINE_EDGE_SOURCES"] = "builtin"
    return env


def timed(argv: list[str], root: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """(wall, CPU of children, exit status)."""
    wall, cpu, status, _, _ = timed_run(argv, root, env)
    return wall, cpu, status


def selection(root: Path, suite: set[str], static: bool,
              floor: bool = True) -> tuple[set[str], str]:
    """The top-level test ids ``reverify HEAD~1..HEAD`` selects (a file: its tests); with
    ``static`` the map is hidden, as on a clone that has none; without ``floor`` the Go
    row's package floor is switched off (the graph's own answer)."""
    from warpline.runners import gotest_discovery

    tests, basis = reverify_selection(root, gotest_discovery, static, floor)
    out: set[str] = set()
    for test_id in tests:
        if "::" in test_id:
            out.add(_top(test_id))
        else:
            out.update(t for t in suite if t.split("::", 1)[0] == test_id)
    return out, basis


def _top(test_id: str) -> str:
    path, _, name = test_id.partition("::")
    return f"{path}::{name.split('/', 1)[0]}" if name else path


def _map(root: Path) -> tuple[dict[str, set[str]], dict[str, str]]:
    """(locator -> the tests the newest map saw execute it, locator -> its file)."""
    from warpline.service.shared.context import open_context
    from warpline.store.testmaps import maps, read_map

    with open_context(str(root), root) as ctx:
        found = maps(ctx.store)
        if not found:
            raise SystemExit("no test map was recorded")
        recorded = read_map(ctx.store, max(found, key=lambda m: m.id))
    out: dict[str, set[str]] = {}
    for test_id, locators in recorded.hits.items():
        for locator in locators:
            out.setdefault(locator, set()).add(test_id)
    return out, recorded.entity_paths


def _map_bytes(root: Path) -> int:
    """The newest map as it travels with git (``warpline.testmap.v1``, compressed)."""
    from warpline.service.shared.context import open_context
    from warpline.store.testmaps import maps, read_map
    from warpline.testmap.wire import encode

    with open_context(str(root), root) as ctx:
        row = max(maps(ctx.store), key=lambda m: m.id)
        return len(encode(read_map(ctx.store, row), row.recorded_at))


def candidates(root: Path, mapped: dict[str, set[str]], paths: dict[str, str],
               seed: int) -> list[tuple[str, str, str]]:
    """(locator, path, qualname) of non-test functions the map saw a test execute, the two
    kinds of mutant alternating (a wrong value where the result allows one)."""
    import pygit2

    from warpline.git.parsecache import TreeFiles
    from warpline.lang.golang import module_name

    repo = pygit2.Repository(str(root))
    files = TreeFiles(repo, repo.revparse_single("HEAD").peel(pygit2.Commit).tree)
    found = []
    for locator in sorted(mapped):
        path = paths.get(locator, "")
        if not locator.startswith("go:function:") or not path.endswith(".go") \
                or path.endswith("_test.go"):
            continue
        prefix = f"go:function:{module_name(path, files)}."
        if locator.startswith(prefix):
            found.append((locator, path, locator[len(prefix):]))
    random.Random(seed).shuffle(found)
    kinds = {c: _kind(root, c) for c in found}
    wrong = [c for c in found if kinds[c] == "wrong-return"]
    rest = [c for c in found if kinds[c] == "panic"]
    mixed = [c for pair in zip(wrong, rest, strict=False) for c in pair]
    return mixed + wrong[len(mixed) // 2:] + rest[len(mixed) // 2:]


def _kind(root: Path, candidate: tuple[str, str, str]) -> str | None:
    found = mutate((root / candidate[1]).read_bytes(), candidate[2])
    return found[1] if found is not None else None


def run(root: Path, wanted: int, seed: int, jobs: int) -> dict[str, Any]:
    env = go_env()
    os.environ["WARPLINE_EDGE_SOURCES"] = "builtin"
    plain = timed(["go", "test", "-count=1", "./..."], root, env)  # warms the build cache
    plain = timed(["go", "test", "-count=1", "./..."], root, env)
    recorded = timed([sys.executable, "-m", "warpline.cli", "record-tests", "--jobs", str(jobs),
                      "--repo", str(root)], root, env)
    subprocess.run([sys.executable, "-m", "warpline.cli", "capture-snapshot", "--repo",
                    str(root)], cwd=root, env=env, check=True, capture_output=True)
    base = git(root, "rev-parse", "HEAD").strip()
    from warpline.runners.gotest_command import discover

    tests = [t for t in discover(root) if t.kind != "benchmark"]
    suite = {t.test_id for t in tests}
    # Tests failing before any mutant (cobra's file-permission tests fail as root) say
    # nothing about a mutant: left out of every mutant's failures, and reported.
    already, _ = failing(root, env, jobs)
    rows: list[dict[str, Any]] = []
    unnoticed = 0
    mapped, paths = _map(root)
    map_size = sum(len(v) for v in mapped.values())
    map_bytes = _map_bytes(root)
    for locator, path, qualname in candidates(root, mapped, paths, seed):
        if len([r for r in rows if r["failing"]]) >= wanted:
            break
        mutated = mutate((root / path).read_bytes(), qualname)
        if mutated is None:
            continue
        source, kind = mutated
        (root / path).write_bytes(source)
        git(root, "commit", "-q", "-am", f"mutant {qualname}")
        truth, blind = failing(root, env, jobs)
        truth -= already
        if not truth:
            unnoticed += 1
            git(root, "reset", "-q", "--hard", base)
            continue
        chosen, basis = selection(root, suite, static=False)
        static, static_basis = selection(root, suite, static=True)
        graph_only, _ = selection(root, suite, static=True, floor=False)
        cover = {_top(t) for t in mapped.get(locator, set())}
        rows.append({"locator": locator, "mutant": kind, "failing": len(truth),
                     "blind_failure": blind, "basis": basis, "static_basis": static_basis,
                     "map_selected": len(chosen), "static_selected": len(static),
                     "covering": len(cover), "map_held": len(truth & chosen),
                     "static_held": len(truth & static),
                     "graph_selected": len(graph_only), "graph_held": len(truth & graph_only),
                     "map_missed": sorted(truth - chosen)[:5],
                     "static_missed": sorted(truth - static)[:5]})
        git(root, "reset", "-q", "--hard", base)
    killed = [r for r in rows if r["failing"]]
    size = len(suite)

    def mean(key: str) -> float | None:
        return round(statistics.mean(r[key] / size for r in killed), 3) if killed else None

    return {"suite": size, "failing_before_mutants": sorted(already), "mutants": rows,
            "unnoticed_mutants": unnoticed,
            "map_links": map_size, "map_compressed_bytes": map_bytes, "summary": {
        "killed": len(killed),
        "map_all_failing_selected": held(killed, "map_held")[0],
        "static_all_failing_selected": held(killed, "static_held")[0],
        "map_recall": held(killed, "map_held")[1],
        "static_recall": held(killed, "static_held")[1],
        "graph_only_all_failing_selected": held(killed, "graph_held")[0],
        "graph_only_recall": held(killed, "graph_held")[1],
        "graph_only_share": mean("graph_selected"),
        "map_share": mean("map_selected"), "static_share": mean("static_selected"),
        "covering_share": mean("covering"),
        "map_to_covering": round(sum(r["map_selected"] for r in killed)
                                 / max(sum(r["covering"] for r in killed), 1), 2),
        "static_to_covering": round(sum(r["static_selected"] for r in killed)
                                    / max(sum(r["covering"] for r in killed), 1), 2),
        "plain_wall_s": round(plain[0], 2), "plain_cpu_s": round(plain[1], 2),
        "record_wall_s": round(recorded[0], 2), "record_cpu_s": round(recorded[1], 2),
        "record_wall_ratio": round(recorded[0] / plain[0], 2) if plain[0] else None,
        "record_cpu_ratio": round(recorded[1] / plain[1], 2) if plain[1] else None,
    }}


def tiny_clone(root: Path) -> Path:
    sys.path.insert(0, str(BENCH.parent))
    from tests.gofixture import FILES, write

    write(root, {k: v for k, v in FILES.items() if not k.startswith("tools/")})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tiny")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = mutant_parser(__doc__)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="warpline-gomutants-") as scratch:
        if args.tiny:
            root, wanted = tiny_clone(Path(scratch) / "tiny"), 2
        elif args.clone is not None:
            root, wanted = args.clone.resolve(), args.mutants
        else:
            parser.error("a clone or --tiny")
        print(json.dumps(run(root, wanted, args.seed, args.jobs), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
