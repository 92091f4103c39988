"""Test selection on a real repository against per-test coverage truth (issue 9).

```sh
python bench/bench_selection.py [--edits 60] [--depths 2,5] [--seed 0] [--workdir DIR]
python bench/bench_selection.py --tiny        # smoke run: 5 edits, fast subset, no history
```

On a clone of the real requests repository (``requests.bundle`` in the shared corpora;
``$WARPLINE_CORPORA`` overrides the directory) with its own suite run offline
(``_requests_corpus``):

1. **Suite runs**: a plain run, then a run under ``pytest --cov=requests
   --cov-context=test`` (the truth, and pure coverage's overhead: the anchor), and, when
   the installed warpline ships the pytest plugin (``--warpline-record``), a second plain
   run and a recording run: recording overhead against the plain run next to it.
2. **Truth**: for every function of ``src/requests`` the tests that executed one of its own
   lines (``_coverage_truth``); ``--edits`` of those that some test executes are sampled
   (seeded).
3. **Selection**: each sampled function alone gets one harmless statement in its body and is
   committed; ``reverify HEAD~1..HEAD`` is asked in-process (the MCP server's situation),
   its ``pytest`` commands are expanded to the suite's node ids and scored against the truth
   (``_selection_eval``); the branch is reset before the next edit. First with the static
   basis (edge snapshot only, at each ``--depths``), then, once a map is recorded, with the
   map. The ``selection`` field of the worklist is reported when the build has it.
4. **Latency**: reverify warm (the same question asked again in the process) and cold (a
   fresh ``warpline reverify --json`` process, beside ``python -c pass`` and
   ``git diff HEAD~1 HEAD`` measured in the same run).

Results: a printed summary and ``bench/out/selection-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _coverage_truth as truth_mod
import _requests_corpus as corpus
import _selection_eval as evaluate

OUT = Path(__file__).resolve().parent / "out"
PACKAGE = "src/requests"


def timed_call(repo: Path, depth: int) -> tuple[float, dict[str, Any]]:
    from warpline.registry import call_tool

    started = time.perf_counter()
    envelope = call_tool("reverify", {"repo": str(repo), "rev_range": "HEAD~1..HEAD",
                                      "depth": depth, "limit": 1000})
    return time.perf_counter() - started, envelope


def wall(argv: Sequence[str], cwd: Path) -> float:
    return wall_cpu(argv, cwd)[0]


def wall_cpu(argv: Sequence[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def plugin_available(clone: Path) -> bool:
    run = corpus.run_suite(clone, ["--help"])
    return "--warpline-record" in run.output


def suite_run(clone: Path, label: str, extra: Sequence[str], subset: str,
              env_extra: dict[str, str] | None = None) -> dict[str, Any]:
    env = corpus.suite_env(clone, guard_log=clone.parent / f"guard-{label}.log")
    env.update(env_extra or {})
    run = corpus.run_suite(clone, extra, subset=subset, env=env)
    tail = [line for line in run.output.splitlines() if " passed" in line or " failed" in line]
    leaks = clone.parent / f"guard-{label}.log"
    print(f"  {label:>10}: wall {run.wall_s:6.1f} s, cpu {run.cpu_s:6.1f} s  "
          f"{tail[-1] if tail else run.output[-300:]}", flush=True)
    return {"label": label, "rc": run.returncode, "wall_s": round(run.wall_s, 2),
            "cpu_s": round(run.cpu_s, 2), "summary": tail[-1] if tail else None,
            "leaks": leaks.read_text().splitlines() if leaks.exists() else []}


def evaluate_edits(clone: Path, base: str, sample: Sequence[truth_mod.Function],
                   truths: dict[str, set[str]], suite: Sequence[str], depth: int,
                   label: str) -> dict[str, Any]:
    scores: list[evaluate.EditScore] = []
    warm: list[float] = []
    selections: list[dict[str, Any]] = []
    for function in sample:
        corpus.git("reset", "-q", "--hard", base, cwd=clone)
        truth_mod.insert_edit(clone, function)
        corpus.git("commit", "-q", "-am", f"bench: edit {function.locator}", cwd=clone)
        seconds, envelope = timed_call(clone, depth)
        warm.append(timed_call(clone, depth)[0])
        selection = envelope["data"].get("selection")
        if selection is not None:
            selections.append(selection)
        chosen = evaluate.selected_ids(evaluate.test_commands(envelope), suite)
        scores.append(evaluate.score(function.locator, truths[function.locator], chosen,
                                     seconds, selection.get("basis") if selection else None))
    corpus.git("reset", "-q", "--hard", base, cwd=clone)
    summary = evaluate.summarise(scores, len(suite))
    summary["reverify_warm_s_median"] = round(statistics.median(warm), 3)
    summary["reverify_warm_s_max"] = round(max(warm), 3)
    print(f"  {label}: mean recall {summary['mean_recall']}, "
          f"no covering test hit {summary['edits_no_covering_test_hit']}/{len(scores)}, "
          f"selection/truth {summary['selection_over_truth_total']}, "
          f"share of suite {summary['mean_share_of_suite']:.1%} "
          f"(truth {summary['truth_share_of_suite']:.1%}), reverify first "
          f"{summary['reverify_s_median']} s / warm {summary['reverify_warm_s_median']} s "
          "(medians)", flush=True)
    return {"summary": summary, "edits": evaluate.as_rows(scores),
            "selection_fields": selections[:3]}


def cold_latency(clone: Path, base: str, sample: Sequence[truth_mod.Function],
                 depth: int) -> dict[str, Any]:
    exe = Path(sys.executable).with_name("warpline")
    cold, cpu, diff = [], [], []
    for function in sample:
        corpus.git("reset", "-q", "--hard", base, cwd=clone)
        truth_mod.insert_edit(clone, function)
        corpus.git("commit", "-q", "-am", f"bench: cold {function.locator}", cwd=clone)
        seconds, used = wall_cpu([str(exe), "reverify", "HEAD~1..HEAD", "--depth", str(depth),
                                  "--json", "--repo", str(clone)], clone)
        cold.append(seconds)
        cpu.append(used)
        diff.append(wall(["git", "diff", "HEAD~1", "HEAD"], clone))
    corpus.git("reset", "-q", "--hard", base, cwd=clone)
    python = statistics.median(wall([sys.executable, "-c", "pass"], clone) for _ in range(5))
    return {"samples": len(cold), "cold_s_median": round(statistics.median(cold), 3),
            "cold_cpu_s_median": round(statistics.median(cpu), 3),
            "python_c_pass_s": round(python, 3),
            "git_diff_s": round(statistics.median(diff), 3),
            "cold_over_python": round(statistics.median(cold) / python, 1)}


def prepare_store(clone: Path) -> dict[str, Any]:
    import os

    from warpline.registry import call_tool

    started = time.perf_counter()
    subprocess.run([str(Path(sys.executable).with_name("warpline")), "backfill", "--repo",
                    str(clone)], check=True, capture_output=True)
    backfill = time.perf_counter() - started
    os.environ["WARPLINE_EDGE_SOURCES"] = "builtin"
    started = time.perf_counter()
    snapshot = call_tool("capture_snapshot", {"repo": str(clone)})
    capture = time.perf_counter() - started
    data = snapshot["data"]
    return {"backfill_s": round(backfill, 1), "capture_s": round(capture, 2),
            "snapshot": {k: data.get(k) for k in ("source", "completeness", "entities",
                                                   "edges")}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--depths", default="2,5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--subset", choices=("all", "fast"), default="all")
    parser.add_argument("--cold-samples", type=int, default=5)
    parser.add_argument("--tiny", action="store_true",
                        help="smoke run: 5 edits, the fast subset, no history, depth 2, 2 cold "
                        "samples, no plain runs (so no overhead figures)")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--no-map", action="store_true", help="skip the map basis")
    parser.add_argument("--no-history", action="store_true",
                        help="HEAD's tree as one commit (a fast backfill; same code and suite)")
    args = parser.parse_args(argv)
    if args.tiny:
        args.edits, args.subset, args.depths, args.cold_samples = 5, "fast", "2", 2
        args.no_history = True
    depths = [int(d) for d in args.depths.split(",") if d]
    missing = corpus.missing_suite_deps()
    if missing:
        print(f"requests' test dependencies are missing: pip install {' '.join(missing)}")
        return 2
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-selection-"))
    clone = work / "requests"
    if clone.exists():
        shutil.rmtree(clone)
    clone.parent.mkdir(parents=True, exist_ok=True)
    corpus.clone_requests(clone, history=not args.no_history)
    base = corpus.git("rev-parse", "HEAD", cwd=clone).strip()
    result: dict[str, Any] = {"corpus": "requests", "base": base, "subset": args.subset,
                              "seed": args.seed, "history": not args.no_history,
                              "python": sys.version.split()[0]}
    print(f"requests at {base[:12]}, subset {args.subset}", flush=True)
    suite = corpus.collected_ids(clone, args.subset)
    result["suite_tests"] = len(suite)
    print(f"suite: {len(suite)} tests ({len(corpus.NETWORK_TESTS)} network tests deselected)")

    data_file = work / "truth.coverage"
    plain = [] if args.tiny else [suite_run(clone, "plain", [], args.subset)]
    runs = [*plain,
            suite_run(clone, "coverage", ["--cov=requests", "--cov-context=test",
                                          "--cov-report="], args.subset,
                      {"COVERAGE_FILE": str(data_file)})]
    per_line = truth_mod.per_line_tests(data_file, clone)
    functions = truth_mod.functions(clone, PACKAGE)
    truths = {f.locator: truth_mod.truth(f, per_line) & set(suite) for f in functions}
    candidates = sorted((f for f in functions if truths[f.locator]), key=lambda f: f.locator)
    sample = random.Random(args.seed).sample(candidates, min(args.edits, len(candidates)))
    result["functions"] = {"total": len(functions), "executed_by_a_test": len(candidates),
                           "sampled": len(sample)}
    print(f"functions in {PACKAGE}: {len(functions)}, executed by some test: "
          f"{len(candidates)}, edited: {len(sample)}", flush=True)

    result["store"] = prepare_store(clone)
    print(f"store: backfill {result['store']['backfill_s']} s, snapshot "
          f"{result['store']['snapshot']}", flush=True)
    result["static"] = {f"depth{d}": evaluate_edits(clone, base, sample, truths, suite, d,
                                                    f"static depth {d}") for d in depths}
    result["cold_static"] = cold_latency(clone, base, sample[: args.cold_samples], depths[0])

    has_plugin = plugin_available(clone)
    result["plugin"] = has_plugin
    if has_plugin and not args.no_map:
        if not args.tiny:
            runs.append(suite_run(clone, "plain-2", [], args.subset))
        runs.append(suite_run(clone, "record", ["--warpline-record"], args.subset))
        result["map"] = {f"depth{d}": evaluate_edits(clone, base, sample, truths, suite, d,
                                                     f"map depth {d}") for d in depths[:1]}
        result["cold_map"] = cold_latency(clone, base, sample[: args.cold_samples], depths[0])
    elif not has_plugin:
        print("  (this warpline has no --warpline-record plugin: map basis not measured)")
    result["runs"] = runs
    by = {r["label"]: r for r in runs}
    result["overhead"] = {} if args.tiny else {
        "coverage_over_plain_wall": round(by["coverage"]["wall_s"] / by["plain"]["wall_s"], 2),
        "coverage_over_plain_cpu": round(by["coverage"]["cpu_s"] / by["plain"]["cpu_s"], 2)}
    if "record" in by and "plain-2" in by:
        result["overhead"].update({
            "record_over_plain_wall": round(by["record"]["wall_s"] / by["plain-2"]["wall_s"], 2),
            "record_over_plain_cpu": round(by["record"]["cpu_s"] / by["plain-2"]["cpu_s"], 2)})
    print(f"overhead: {result['overhead']}")
    print(f"cold reverify (static): {result['cold_static']}")
    if "cold_map" in result:
        print(f"cold reverify (map): {result['cold_map']}")
    leaks = [line for r in runs for line in r["leaks"]]
    if leaks:
        print(f"WARNING: tests tried to leave the machine (refused): {leaks[:5]}")
    OUT.mkdir(exist_ok=True)
    out = OUT / f"selection-{time.strftime('%Y%m%dT%H%M%S')}.json"
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out}")
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if leaks or any(r["rc"] not in (0,) for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
