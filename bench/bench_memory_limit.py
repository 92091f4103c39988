"""A full backfill inside a real memory cgroup: does it complete within the limit?

    python bench/bench_memory_limit.py REPO ... [--limit-mb 200,300] [--old-tree DIR]
        [--workers N] [--generate N]

For each repository and limit, a fresh clone is backfilled by ``warpline backfill`` run
inside a new memory cgroup with that limit (the kernel's accounting, as a container or a
CI runner's; root only). Printed: the worker count warpline chose inside the group, exit
status, wall time, commits ingested and failed, the group's peak use (file cache
included) and OOM kills. ``--old-tree DIR`` runs the same again with DIR first on
``PYTHONPATH`` (another build, same interpreter); ``--workers N`` forces the count
(``WARPLINE_INGEST_WORKERS``). Where no cgroup can be made it says so and measures
nothing. JSON goes to bench/out/. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _bench_util import clone, head_sha, write_report
from _cgroup import CgroupUnavailable, memory_cgroup

MB = 1 << 20
_CHOSEN = ("from warpline import settings; print(settings.ingest_workers())")
_BACKFILL = ("import sys; from warpline.cli import main; sys.exit(main())")


def backfill_in_group(repo: Path, limit_mb: int, env: dict[str, str],
                      work: Path) -> dict[str, Any]:
    with memory_cgroup(limit_mb * MB) as group:
        chosen = group.run([sys.executable, "-c", _CHOSEN], env=env, cwd=work, timeout=60)
        started = time.perf_counter()
        done = group.run([sys.executable, "-c", _BACKFILL, "backfill", "--repo", str(repo),
                          "--json"], env=env, cwd=work, timeout=3600)
        seconds = time.perf_counter() - started
        peak, kills = group.peak_bytes(), group.oom_kills()
    result: dict[str, Any] = {"limit_mb": limit_mb, "workers": chosen.stdout.strip(),
                              "exit": done.returncode, "seconds": round(seconds, 2),
                              "peak_mb": None if peak is None else peak >> 20,
                              "oom_kills": kills}
    try:
        report = json.loads(done.stdout)
    except ValueError:
        result["report"] = None
        result["stderr"] = done.stderr[-500:]
    else:
        result["report"] = {"commits_ingested": report["commits_ingested"],
                            "failures": len(report["failures"]),
                            "complete": report["complete"]}
    return result


def describe(label: str, r: dict[str, Any]) -> str:
    rep = r["report"]
    outcome = (f"{rep['commits_ingested']} commits, {rep['failures']} failed, "
               f"{'complete' if rep['complete'] else 'INCOMPLETE'}" if rep
               else f"no report (killed?): {r.get('stderr', '').strip()[-120:]}")
    return (f"  {label:5} limit {r['limit_mb']:>5} MB  workers {r['workers'] or '?':>2}  "
            f"exit {r['exit']:>3}  {r['seconds']:7.1f} s  peak {r['peak_mb']} MB  "
            f"OOM kills {r['oom_kills']}  {outcome}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="*", type=Path, help="existing git repositories")
    parser.add_argument("--limit-mb", default="200,300",
                        help="memory limits to try, comma-separated (default 200,300)")
    parser.add_argument("--old-tree", type=Path, help="another build to run the same way")
    parser.add_argument("--workers", help="force WARPLINE_INGEST_WORKERS")
    parser.add_argument("--generate", type=int, metavar="N",
                        help="also a generated history of N commits")
    args = parser.parse_args(argv)
    if not args.repos and not args.generate:
        parser.error("give a repository path or --generate N")
    limits = [int(x) for x in args.limit_mb.split(",") if x.strip()]
    base_env = {k: v for k, v in os.environ.items() if k != "WARPLINE_INGEST_WORKERS"}
    if args.workers is not None:
        base_env["WARPLINE_INGEST_WORKERS"] = args.workers
    builds: list[tuple[str, dict[str, str]]] = [("new", base_env)]
    if args.old_tree is not None:
        builds.append(("old", {**base_env, "PYTHONPATH": str(args.old_tree.resolve())}))
    work = Path(tempfile.mkdtemp(prefix="warpline-bench-mem-"))
    report: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                              "results": []}
    try:
        sources = [p.resolve() for p in args.repos]
        if args.generate:
            from genhistory import generate

            generate(work / "generated", args.generate, 0)
            sources.append(work / "generated")
        for index, src in enumerate(sources):
            print(f"repo {src}", flush=True)
            for limit in limits:
                for label, env in builds:
                    dest = work / f"r{index}-{limit}-{label}"
                    clone(src, dest, head_sha(src))
                    try:
                        result = backfill_in_group(dest, limit, env, work)
                    except CgroupUnavailable as exc:
                        print(f"  not measured: {exc}")
                        return 0
                    finally:
                        shutil.rmtree(dest, ignore_errors=True)
                    report["results"].append({"repo": str(src), "build": label, **result})
                    print(describe(label, result), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_report("memory-limit", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
