"""What recording a test map costs: a real suite run plain, with ``--warpline-record``, and
with pytest-cov's per-test contexts (``--cov-context=test``, the same tracer doing the same
per-test bookkeeping) and, when pytest-testmon is installed, testmon's first (recording)
run (the issue's anchor), same machine, same run.

    python bench/bench_testmap.py REPO [--runs 1] [--xdist 0] [-- PYTEST ARGS...]

``REPO`` is a git work tree whose suite runs with ``python -m pytest`` from its root (put
its sources on ``PYTHONPATH`` yourself if it needs that). Wall time and CPU time (user +
system of the pytest process and its children) are both printed, with ratios to the plain
run: a suite that sleeps or waits on sockets has a wall time the tracer cannot change, so
the CPU ratio is the tracer's cost. With ``--xdist N`` the recording is also timed under
``-n N``. The recorded map's size is printed (tests, entities, links, store bytes), and the
map is compared with pytest-cov's per-test truth from the same run (links missing or extra;
per function, recall and selection ratio of "the tests that executed it"). Nothing is
asserted; JSON goes to ``bench/out/testmap.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))


@dataclass(slots=True)
class Timing:
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    exit: int = 0


def _run(repo: Path, args: list[str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=repo,
                            capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if result.returncode not in (0, 1):
        sys.stderr.write(result.stdout[-3000:] + result.stderr[-3000:])
    return wall, cpu, result.returncode


def _map_size(repo: Path) -> dict[str, int]:
    from warpline.store.db import Store, store_path
    from warpline.store.testmaps import maps

    with Store.open(repo) as store:
        row = maps(store)[0]
    return {"map_id": row.id, "tests": row.test_count, "entities": row.entity_count,
            "links": row.hit_count, "store_bytes": store_path(repo).stat().st_size}


def _agreement(repo: Path, data_file: Path) -> dict[str, float]:
    """The recorded map against pytest-cov's per-test contexts of the same suite, both
    mapped to entities the same way: links the map lacks or adds, and per function the
    recall and size of "the tests that executed it"."""
    import pygit2

    from warpline.runners.pytest_coverage import recording_from_lines
    from warpline.runners.pytest_covimport import _SuffixMapper, read_lines
    from warpline.store.db import Store
    from warpline.store.testmaps import hits_by_test, maps

    git = pygit2.Repository(str(repo))
    lines, _ = read_lines(data_file)
    truth = recording_from_lines(_SuffixMapper(repo, git, git.head.peel(pygit2.Commit)),
                                 lines).hits
    with Store.open(repo) as store:
        row = next(m for m in maps(store) if m.source == "pytest-plugin")
        mine = hits_by_test(store, row.id)
    common = set(truth) & set(mine)
    missing = sum(len(truth[t] - mine[t]) for t in common)
    extra = sum(len(mine[t] - truth[t]) for t in common)
    by_truth: dict[str, set[str]] = {}
    by_map: dict[str, set[str]] = {}
    for hits, into in ((truth, by_truth), (mine, by_map)):
        for test, locators in hits.items():
            for locator in locators:
                into.setdefault(locator, set()).add(test)
    functions = [loc for loc in by_truth if loc.startswith("python:function:")]
    recall = [len(by_truth[f] & by_map.get(f, set())) / len(by_truth[f]) for f in functions]
    ratio = [len(by_map.get(f, set())) / len(by_truth[f]) for f in functions]
    return {"tests_truth": len(truth), "tests_map": len(mine), "tests_common": len(common),
            "truth_links": sum(len(truth[t]) for t in common), "links_missing": missing,
            "links_extra": extra, "functions": len(functions),
            "mean_recall": round(statistics.mean(recall), 4) if recall else 0.0,
            "min_recall": round(min(recall), 4) if recall else 0.0,
            "mean_selection_ratio": round(statistics.mean(ratio), 4) if ratio else 0.0,
            "max_selection_ratio": round(max(ratio), 4) if ratio else 0.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--xdist", type=int, default=0)
    parser.add_argument("--variants", help="comma-separated subset (plain always runs)")
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.pytest_args = argv[split + 1:]
    repo: Path = args.repo.resolve()
    extra: list[str] = list(args.pytest_args)
    base = list(extra)
    extra = [*base, "-p", "no:cacheprovider"]
    variants = {
        "plain": [*extra, "-p", "no:warpline"],
        "warpline_record": [*extra, "--warpline-record"],
        "pytest_cov_contexts": [*extra, "-p", "no:warpline", f"--cov={repo}",
                                "--cov-context=test", "--cov-report="],
    }
    if importlib.util.find_spec("testmon") is not None:
        # testmon's own overhead (a first run records everything): the anchor.
        # It needs pytest's cache plugin.
        variants["testmon_first_run"] = [*base, "-p", "no:warpline", "--testmon"]
    if args.xdist:
        variants["warpline_record_xdist"] = [*extra, "--warpline-record", "-n",
                                             str(args.xdist)]
        variants["plain_xdist"] = [*extra, "-p", "no:warpline", "-n", str(args.xdist)]
    if args.variants:
        wanted = {"plain", *args.variants.split(",")}
        variants = {k: v for k, v in variants.items() if k in wanted}
    timings: dict[str, Timing] = {name: Timing() for name in variants}
    size: dict[str, int] | None = None
    for _ in range(args.runs):
        for name, variant in variants.items():  # interleaved: drift hits every variant
            wall, cpu, code = _run(repo, variant)
            timing = timings[name]
            timing.walls.append(wall)
            timing.cpus.append(cpu)
            timing.exit = code
            if name == "warpline_record":
                size = _map_size(repo)
            testmon_data = repo / ".testmondata"
            if testmon_data.exists():  # every testmon run starts from nothing
                testmon_data.unlink()
    base_wall = statistics.median(timings["plain"].walls)
    base_cpu = statistics.median(timings["plain"].cpus)
    print(f"{'variant':24} {'wall s':>8} {'x plain':>8} {'cpu s':>8} {'x plain':>8} exit")
    summary: dict[str, object] = {"repo": str(repo), "runs": args.runs, "pytest_args": extra}
    for name, timing in timings.items():
        wall, cpu = statistics.median(timing.walls), statistics.median(timing.cpus)
        summary[name] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                         "wall_ratio": round(wall / base_wall, 3),
                         "cpu_ratio": round(cpu / base_cpu, 3), "exit": timing.exit}
        print(f"{name:24} {wall:8.2f} {wall / base_wall:8.2f} {cpu:8.2f} "
              f"{cpu / base_cpu:8.2f} {timing.exit}")
    summary["map"] = size
    data_file = repo / ".coverage"
    if data_file.exists():
        summary["agreement"] = _agreement(repo, data_file)
        print("map vs pytest-cov per-test truth:", summary["agreement"])
        data_file.unlink()
    print("map:", summary["map"])
    out = _ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "testmap.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
