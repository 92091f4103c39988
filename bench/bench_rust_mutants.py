"""Rust mutants on a real suite: is every failing test in the selection, map-first and static?

    python bench/bench_rust_mutants.py CLONE [--mutants 20] [--seed 37] [--jobs 2]
        [--rust-version 1.95]
    python bench/bench_rust_mutants.py --tiny        # the tests' fixture workspace, 2 mutants

On a clone of a cargo workspace (ripgrep: ``git clone shared/corpora/ripgrep.bundle``;
``CARGO_TARGET_DIR`` names a target directory kept between runs, the coverage build goes
to its ``warpline-cov``):

0. ``--rust-version`` lowers the workspace's ``rust-version`` in a setup commit when the
   corpus asks for a newer compiler than the machine's (ripgrep asks 1.96, rustup's stable
   here is 1.95; nothing in its code needs more);
1. a plain ``cargo test --workspace --no-fail-fast`` (built first, then timed), then the
   whole suite's map (``warpline record-tests``: LLVM coverage, each test alone), timed in
   the same run (the recording overhead), and the edge snapshot (``capture-snapshot``,
   built-in source);
2. functions of the packages' ``src`` that the map saw the suite execute (not tests, not
   test helpers) are drawn (``--seed``) and broken one at a time (``panic!`` as the body's
   first statement: a thrown error), each committed;
3. per mutant, ``reverify HEAD~1..HEAD`` answers in process map-first (as it is), static
   (the map hidden) and the graph alone (the map hidden, the cargo row's floor off); the
   whole suite runs (``--no-fail-fast``) and every failing test is looked for in each
   selection;
4. until ``--mutants`` mutants made at least one test fail (one no test notices, or that
   does not build, is counted apart).

Printed: per mutant its failing tests, the selections' sizes and misses; the summary:
mutants with every failing test selected, recall over failing tests, each selection's mean
share of the suite and its ratio to the coverage truth (the tests the map saw execute the
mutated function), the map's size and the recording ratio.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _selection_eval import held, mutant_parser, reverify_selection, timed

BENCH = Path(__file__).resolve().parent
SUITE_TIMEOUT_S = 1800


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=bench", "-c",
                           "user.email=bench@example.invalid", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def cargo_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPLINE_")}
    env["WARPLINE_EDGE_SOURCES"] = "builtin"
    env["CARGO_TERM_COLOR"] = "never"
    return env


def suite_failures(root: Path, env: dict[str, str]) -> tuple[set[str] | None, int]:
    """The ids of the tests failing in the whole suite (None: it did not build or ran
    out of time), and how many ran."""
    from warpline.runners.cargo_run import _watch_streams, names
    from warpline.runners.receipt import RunWatchState

    _, _, status, out, err = timed(["cargo", "test", "--workspace", "--no-fail-fast"],
                                      root, env, SUITE_TIMEOUT_S)
    if status == -1 or "error: could not compile" in err:
        return None, 0
    state = RunWatchState(commit_at_start=None)
    _watch_streams(err, out, names(root), state, [])
    return {t for t, o in state.outcomes.items() if o == "failed"}, len(state.outcomes)


def selection(root: Path, suite: set[str], static: bool,
              floor: bool = True) -> tuple[set[str], str]:
    """The test ids ``reverify HEAD~1..HEAD`` selects (a file: its tests)."""
    from warpline.runners import cargo_discovery

    tests, basis = reverify_selection(root, cargo_discovery, static, floor)
    out: set[str] = set()
    for test_id in tests:
        if ".rs::" in test_id:
            out.add(test_id)
        else:
            out.update(t for t in suite if t.partition("::")[0] == test_id)
    return out, basis


def _map(root: Path) -> tuple[dict[str, set[str]], dict[str, str], int]:
    from warpline.service.shared.context import open_context
    from warpline.store.testmaps import maps, read_map
    from warpline.testmap.wire import encode

    with open_context(str(root), root) as ctx:
        found = maps(ctx.store)
        if not found:
            raise SystemExit("no test map was recorded")
        row = max(found, key=lambda m: m.id)
        recorded = read_map(ctx.store, row)
        size = len(encode(recorded, row.recorded_at))
    out: dict[str, set[str]] = {}
    for test_id, locators in recorded.hits.items():
        for locator in locators:
            out.setdefault(locator, set()).add(test_id)
    return out, recorded.entity_paths, size


def _is_test_code(locator: str, path: str) -> bool:
    parts = path.split("/")
    return ("tests" in parts[:-1] or ".tests." in locator or "testutil" in locator
            or locator.endswith(".main") or "~tests." in locator)


def candidates(root: Path, mapped: dict[str, set[str]], paths: dict[str, str],
               seed: int) -> list[tuple[str, str]]:
    """Functions of the packages' code (``src/``; ripgrep's binary lives in
    ``crates/core``) that the map saw a test execute."""
    found = sorted((locator, path) for locator, path in paths.items()
                   if locator.startswith("rust:function:") and locator in mapped
                   and path.endswith(".rs") and not _is_test_code(locator, path)
                   and ("/src/" in f"/{path}" or path.startswith("crates/core/")))
    random.Random(seed).shuffle(found)
    return found


def mutate(root: Path, locator: str, path: str) -> bytes | None:
    """The file with ``panic!`` first in the function ``locator``'s body; None when the
    function has no body there (a signature, a ``const fn``)."""
    import pygit2
    import tree_sitter
    import tree_sitter_rust

    from warpline.graph.builtin.treefiles import CommitFiles as TreeFiles
    from warpline.lang import RUST
    from warpline.lang.rust import module_name, read

    repo = pygit2.Repository(str(root))
    source = (root / path).read_bytes()
    module = module_name(path, TreeFiles(repo.head.peel(pygit2.Commit)))
    defs = read(source)
    if module is None or defs is None:
        return None
    owners = defs.paint(1, defs.line_count)
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_rust.language()))
    stack = [parser.parse(source).root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "function_item":
            continue
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            continue
        if RUST.locator(owners[name.start_point[0]], module) != locator:
            continue
        modifiers = next((c for c in node.named_children if c.type == "function_modifiers"),
                         None)
        if modifiers is not None and b"const" in (modifiers.text or b""):
            return None
        at = body.start_byte + 1
        return source[:at] + b' panic!("warpline mutant"); ' + source[at:]
    return None


def run(root: Path, wanted: int, seed: int, jobs: int, rust_version: str | None) -> dict[str, Any]:
    env = cargo_env()
    os.environ["WARPLINE_EDGE_SOURCES"] = "builtin"
    if rust_version:
        changed = False
        for manifest in sorted(root.glob("**/Cargo.toml")):
            text = manifest.read_text()
            lowered = re.sub(r'(?m)^rust-version = "[^"]+"', f'rust-version = "{rust_version}"',
                             text)
            if lowered != text:
                manifest.write_text(lowered)
                changed = True
        if changed:
            git(root, "commit", "-q", "-am", f"bench: rust-version {rust_version}")
    built = timed(["cargo", "test", "--workspace", "--no-run"], root, env)  # untimed
    if built[2] != 0:
        raise SystemExit(f"the suite does not build: {built[4][-2000:]}")
    plain = timed(["cargo", "test", "--workspace", "--no-fail-fast"], root, env)
    recorded = timed([sys.executable, "-m", "warpline.cli", "record-tests", "--jobs",
                      str(jobs), "--repo", str(root)], root, env, 4 * 3600)
    capture = timed([sys.executable, "-m", "warpline.cli", "capture-snapshot", "--repo",
                     str(root)], root, env)
    base = git(root, "rev-parse", "HEAD").strip()
    from warpline.runners.cargo_tests import discover

    suite = {t.test_id for t in discover(root) if not t.ignored}
    already, ran = suite_failures(root, env)
    already = already or set()
    mapped, paths, map_bytes = _map(root)
    rows: list[dict[str, Any]] = []
    unnoticed = unbuilt = 0
    for locator, path in candidates(root, mapped, paths, seed):
        if len(rows) >= wanted:
            break
        mutated = mutate(root, locator, path)
        if mutated is None:
            continue
        (root / path).write_bytes(mutated)
        git(root, "commit", "-q", "-am", f"mutant {locator}")
        truth, _ = suite_failures(root, env)
        if truth is None:
            unbuilt += 1
        elif not truth - already:
            unnoticed += 1
        else:
            truth -= already
            chosen, basis = selection(root, suite, static=False)
            static, static_basis = selection(root, suite, static=True)
            graph_only, _ = selection(root, suite, static=True, floor=False)
            cover = mapped.get(locator, set())
            with open(os.environ.get("RUST_MUTANTS_LOG", os.devnull), "a") as log:
                log.write(json.dumps({"locator": locator, "path": path,
                                      "failing": sorted(truth), "map": sorted(chosen),
                                      "static": sorted(static)}) + "\n")
            rows.append({"locator": locator, "failing": len(truth), "basis": basis,
                         "static_basis": static_basis, "map_selected": len(chosen),
                         "static_selected": len(static), "graph_selected": len(graph_only),
                         "covering": len(cover), "map_held": len(truth & chosen),
                         "static_held": len(truth & static),
                         "graph_held": len(truth & graph_only),
                         "map_missed": sorted(truth - chosen)[:5],
                         "static_missed": sorted(truth - static)[:5]})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        git(root, "reset", "-q", "--hard", base)
    size = len(suite)

    def mean(key: str) -> float | None:
        return round(statistics.mean(r[key] / size for r in rows), 3) if rows else None

    return {"suite": size, "suite_ran": ran, "failing_before_mutants": sorted(already),
            "mutants": rows, "unnoticed_mutants": unnoticed, "unbuilt_mutants": unbuilt,
            "map_tests": len({t for v in mapped.values() for t in v}),
            "map_links": sum(len(v) for v in mapped.values()),
            "map_compressed_bytes": map_bytes, "summary": {
        "killed": len(rows),
        "map_all_failing_selected": held(rows, "map_held")[0],
        "static_all_failing_selected": held(rows, "static_held")[0],
        "map_recall": held(rows, "map_held")[1],
        "static_recall": held(rows, "static_held")[1],
        "graph_only_all_failing_selected": held(rows, "graph_held")[0],
        "graph_only_recall": held(rows, "graph_held")[1],
        "map_share": mean("map_selected"), "static_share": mean("static_selected"),
        "graph_only_share": mean("graph_selected"), "covering_share": mean("covering"),
        "map_to_covering": round(sum(r["map_selected"] for r in rows)
                                 / max(sum(r["covering"] for r in rows), 1), 2),
        "static_to_covering": round(sum(r["static_selected"] for r in rows)
                                    / max(sum(r["covering"] for r in rows), 1), 2),
        "plain_wall_s": round(plain[0], 2), "plain_cpu_s": round(plain[1], 2),
        "record_wall_s": round(recorded[0], 2), "record_cpu_s": round(recorded[1], 2),
        "record_status": recorded[2],
        "record_wall_ratio": round(recorded[0] / plain[0], 2) if plain[0] else None,
        "record_cpu_ratio": round(recorded[1] / plain[1], 2) if plain[1] else None,
        "capture_wall_s": round(capture[0], 2), "capture_cpu_s": round(capture[1], 2),
    }}


def rescore(root: Path, sets: Path, base: str) -> dict[str, Any]:
    """The static selections again, with the code as it is now, for mutants a run kept
    (``RUST_MUTANTS_LOG``): each is re-made and committed on ``base``, the snapshot of
    ``base`` captured anew, no suite run (their failing tests are the run's)."""
    env = cargo_env()
    os.environ["WARPLINE_EDGE_SOURCES"] = "builtin"
    git(root, "reset", "-q", "--hard", base)
    timed([sys.executable, "-m", "warpline.cli", "capture-snapshot", "--repo", str(root)],
          root, env)
    from warpline.runners.cargo_tests import discover

    suite = {t.test_id for t in discover(root) if not t.ignored}
    rows: list[dict[str, Any]] = []
    for line in sets.read_text().splitlines():
        kept = json.loads(line)
        mutated = mutate(root, kept["locator"], kept["path"])
        if mutated is None:
            continue
        (root / kept["path"]).write_bytes(mutated)
        git(root, "commit", "-q", "-am", f"mutant {kept['locator']}")
        truth = set(kept["failing"])
        static, _ = selection(root, suite, static=True)
        graph_only, _ = selection(root, suite, static=True, floor=False)
        rows.append({"locator": kept["locator"], "failing": len(truth),
                     "static_selected": len(static), "static_held": len(truth & static),
                     "graph_selected": len(graph_only), "graph_held": len(truth & graph_only),
                     "static_missed": sorted(truth - static)[:5]})
        git(root, "reset", "-q", "--hard", base)
    size = len(suite)
    return {"suite": size, "mutants": rows, "summary": {
        "static_all_failing_selected": held(rows, "static_held")[0],
        "static_recall": held(rows, "static_held")[1],
        "graph_only_all_failing_selected": held(rows, "graph_held")[0],
        "graph_only_recall": held(rows, "graph_held")[1],
        "static_share": round(statistics.mean(r["static_selected"] / size for r in rows), 3)
        if rows else None}}


def tiny_clone(root: Path) -> Path:
    sys.path.insert(0, str(BENCH.parent))
    from tests.cargoproject import write

    write(root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tiny")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = mutant_parser(__doc__)
    parser.add_argument("--rust-version")
    parser.add_argument("--rescore", type=Path, help="a RUST_MUTANTS_LOG file to score again")
    parser.add_argument("--base", help="with --rescore: the commit the mutants were made on")
    args = parser.parse_args(argv)
    if args.rescore is not None:
        if args.clone is None or args.base is None:
            parser.error("--rescore needs the clone and --base")
        print(json.dumps(rescore(args.clone.resolve(), args.rescore, args.base), indent=1))
        return 0
    with tempfile.TemporaryDirectory(prefix="warpline-rustmutants-") as scratch:
        if args.tiny:
            os.environ.setdefault("CARGO_TARGET_DIR", str(Path(scratch) / "target"))
            root, wanted = tiny_clone(Path(scratch) / "tiny"), 2
        elif args.clone is not None:
            root, wanted = args.clone.resolve(), args.mutants
        else:
            parser.error("a clone or --tiny")
        print(json.dumps(run(root, wanted, args.seed, args.jobs, args.rust_version), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
