"""What recording a test map costs: a real suite run plain, with ``--warpline-record``, and
with pytest-cov's per-test contexts (``--cov-context=test``, the same tracer doing the same
per-test bookkeeping: the anchor), same machine, same run.

    python bench/bench_testmap.py REPO [--runs 1] [--xdist 0] [-- PYTEST ARGS...]

``REPO`` is a git work tree whose suite runs with ``python -m pytest`` from its root (put
its sources on ``PYTHONPATH`` yourself if it needs that). Wall time and CPU time (user +
system of the pytest process and its children) are both printed, with ratios to the plain
run: a suite that sleeps or waits on sockets has a wall time the tracer cannot change, so
the CPU ratio is the tracer's cost. With ``--xdist N`` the recording is also timed under
``-n N``. The recorded map's size is printed (tests, entities, links, store bytes). Nothing
is asserted; JSON goes to ``bench/out/testmap.json``.
"""

from __future__ import annotations

import argparse
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
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                             *args], cwd=repo, capture_output=True, text=True, check=False,
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
        row = maps(store.conn)[0]
    return {"map_id": row.id, "tests": row.test_count, "entities": row.entity_count,
            "links": row.hit_count, "store_bytes": store_path(repo).stat().st_size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--xdist", type=int, default=0)
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.pytest_args = argv[split + 1:]
    repo: Path = args.repo.resolve()
    extra: list[str] = list(args.pytest_args)
    variants = {
        "plain": [*extra, "-p", "no:warpline"],
        "warpline_record": [*extra, "--warpline-record"],
        "pytest_cov_contexts": [*extra, "-p", "no:warpline", f"--cov={repo}",
                                "--cov-context=test", "--cov-report="],
    }
    if args.xdist:
        variants["warpline_record_xdist"] = [*extra, "--warpline-record", "-n",
                                             str(args.xdist)]
        variants["plain_xdist"] = [*extra, "-p", "no:warpline", "-n", str(args.xdist)]
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
    print("map:", summary["map"])
    out = _ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "testmap.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
