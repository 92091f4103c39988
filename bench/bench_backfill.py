"""Backfill and ingest-commit benchmark, against `git log --numstat` measured in the same run.

    python bench/bench_backfill.py [REPO_PATH ...] [--generate N] [--ingest-samples K]

For each repository (a generated one when ``--generate N``, plus any paths given):

1. ``git log --numstat --format=%H HEAD`` over the full history, output discarded (the lower
   bound; one untimed warm-up run first, then best of ``--repeat``);
2. a full warpline backfill into a FRESH store, in a local clone (the given repository and
   its ``.weft/`` are never touched);
3. their ratio, commits/s and events/s, the event digest of the stored events
   (``_event_digest.py``: equal digests, equal attribution), the CPU time of the whole
   process tree (writer and workers) and its peak RSS and PSS summed over every process
   (``_proctree.py``);
3a. the same backfill again beside ``--load N`` CPU-bound busy processes (default 2): its
   time and its ratio to the idle run above, and its digest (it must not change);
4. ``warpline ingest-commit`` latency in a fresh process: a second clone is reset to
   HEAD~K (first parent) and backfilled, then each commit from there to HEAD is ingested
   oldest first, one subprocess each, with the branch moved to it as a post-commit hook
   would see it (p50/p90/max, and again over the commits that changed a ``.py`` file:
   they parse); printed beside ``python -c pass``, ``import warpline.cli`` and two
   floors: importing the standard library the job needs, and that with pygit2 (the
   floors end as ``warpline`` does, without the interpreter's teardown).
   ``--single-backfill`` measures 1-3 over HEAD~K instead and reuses that store.

A compact report goes to stdout and JSON to bench/out/ (gitignored). See bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_util import (
    clone,
    environment,
    format_result,
    git,
    git_log_cpu,
    git_log_numstat,
    head_sha,
    history_counts,
    percentiles,
    wall,
    write_report,
)
from _event_digest import event_digest
from _proctree import CpuLoad, TreeMonitor


# -- the warpline call sites: the only lines to touch when the API moves ------------------
def warpline_backfill(repo_path: Path) -> dict[str, Any]:
    """Backfill ``repo_path`` in-process; return the ingest report's figures."""
    from warpline.git.repo import head_commit, open_repo
    from warpline.store.db import Store

    try:
        from warpline.ingest.driver import Ingestor
    except ImportError:  # a build before the ingest package (an old tree on PYTHONPATH)
        from warpline.store.ingest import Ingestor  # type: ignore[import-not-found,no-redef]

    repo = open_repo(repo_path)
    with Store.open(repo_path) as store:
        report = Ingestor(store, repo).catch_up(head_commit(repo), budget_s=None)
    return {"commits_ingested": report.commits_ingested,
            "events_written": report.events_written,
            "unparsed_files": report.unparsed_files,
            "failures": len(report.failures),
            "commits_behind": report.commits_behind}


def warpline_cli() -> list[str]:
    """The command a post-commit hook runs: the console script beside this interpreter."""
    script = Path(sys.executable).parent / "warpline"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "warpline.cli"]


def ingest_commit_argv(sha: str, repo_path: Path) -> list[str]:
    return [*warpline_cli(), "ingest-commit", sha, "--repo", str(repo_path)]


STORE_DIR = Path(".weft") / "warpline"
STORE_FILE = "warpline.db"
# -------------------------------------------------------------------------------------------


def timed_backfill(path: Path, exclude: frozenset[int] = frozenset()) -> dict[str, Any]:
    """A full backfill into a fresh store: wall time, the ingest's figures, the whole
    process tree's CPU time and peak RSS/PSS, and the event digest of what it stored."""
    shutil.rmtree(path / STORE_DIR, ignore_errors=True)  # a fresh store, every time
    load_before = os.getloadavg()[0]
    try:
        with TreeMonitor(exclude=exclude) as monitor:
            figures = warpline_backfill(path)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"seconds": round(monitor.seconds, 3), **figures, **monitor.figures(),
            "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "digest": event_digest(path / STORE_DIR / STORE_FILE)}


def loaded_backfill(path: Path, busy: int) -> dict[str, Any]:
    """The same backfill again beside ``busy`` CPU-bound processes."""
    with CpuLoad(busy) as load:
        result = timed_backfill(path, exclude=load.pids)
    return {"busy_processes": busy, **result}


# The standard library modules recording one commit cannot do without: the store
# (sqlite3, json), the parser (ast), the records (dataclasses, typing), paths (pathlib)
# and the command line (argparse).
STDLIB_FLOOR = "sqlite3, json, ast, dataclasses, typing, pathlib, argparse"
_NO_TEARDOWN = "; import os; os._exit(0)"


def ingest_latency(repo: Path, head: str, base: str) -> dict[str, Any]:
    """Ingest each commit of ``head ^base`` into ``repo``'s store (backfilled up to ``base``)."""
    todo = git("rev-list", "--reverse", "--topo-order", head, f"^{base}", cwd=repo).split()
    times: list[float] = []
    errors: list[str] = []
    # The lower bounds run interleaved with the ingests (a busy machine slows all alike):
    # ``python -S`` skips site-packages and any .pth start-up hook the environment adds.
    # The floors: what any ingest of one commit in Python pays before warpline's own code
    # (the standard library the job needs; and libgit2 through pygit2 beside it). They
    # end as `warpline` ends (``warpline.exiting``: no interpreter teardown), so what lies
    # above them is warpline's own work.
    lower = {"python -S -c pass": ["-S", "-c", "pass"], "python -c pass": ["-c", "pass"],
             "import warpline.cli": ["-c", f"import warpline.cli{_NO_TEARDOWN}"],
             "stdlib floor": ["-c", f"import {STDLIB_FLOOR}{_NO_TEARDOWN}"],
             "stdlib floor + pygit2": ["-c", f"import {STDLIB_FLOOR}, pygit2{_NO_TEARDOWN}"]}
    runs: dict[str, list[float]] = {name: [] for name in lower}
    with_python: list[float] = []  # the commits that changed a .py file (first parent)
    for sha in todo:
        git("reset", "-q", "--soft", sha, cwd=repo)  # where a post-commit hook would be
        seconds, code, err = wall(ingest_commit_argv(sha, repo))
        if code:
            errors.append(f"{sha[:12]} exit {code}: {err}")
        else:
            times.append(seconds)
            if _touches_python(repo, sha):
                with_python.append(seconds)
        for name, flags in lower.items():
            runs[name].append(wall([sys.executable, *flags])[0])
    baselines = {name: percentiles(values) for name, values in runs.items() if values}
    return {"uncompiled_modules": uncompiled_modules(),
            "base": base, "commits": len(todo), "command": warpline_cli(),
            "latency": percentiles(times), "latency_python": percentiles(with_python),
            "errors": errors, "baselines": baselines}


def uncompiled_modules() -> tuple[int, int]:
    """(modules of the installed warpline without up-to-date bytecode, modules): each
    such module is compiled again by every fresh process, which start-up figures then
    include (an editable install under PYTHONDONTWRITEBYTECODE=1, say)."""
    import importlib.util

    import warpline

    sources = list(Path(warpline.__file__).parent.rglob("*.py"))
    stale = 0
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        if not cached.exists() or cached.stat().st_mtime < source.stat().st_mtime:
            stale += 1
    return stale, len(sources)


def _touches_python(repo: Path, sha: str) -> bool:
    """Whether ``sha`` changed a ``.py`` file against its first parent (a root commit:
    against the empty tree), as the walker diffs it."""
    changed = git("diff-tree", "-r", "--root", "--no-commit-id", "--name-only", "-m",
                  "--first-parent", sha, cwd=repo)
    return any(path.endswith(".py") for path in changed.splitlines())


def bench_repo(label: str, src: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    head = head_sha(src)
    samples = min(args.ingest_samples, int(git("rev-list", "--count", "--first-parent", head,
                                               cwd=src)) - 1)
    base = git("rev-parse", f"{head}~{samples}", cwd=src).strip() if samples > 0 else head
    top = base if args.single_backfill else head
    repo = clone(src, work / "full", top)
    result: dict[str, Any] = {"label": label, "source": str(src), "head": head,
                              "measured_at": top, **history_counts(repo)}
    # ``--repeat`` rounds of (git log, backfill): each backfill beside its own lower bound,
    # the median round reported (the machine is shared: a round's load moves both).
    rounds: list[dict[str, Any]] = []
    for _ in range(max(1, args.repeat)):
        git_log = round(git_log_numstat(repo, 1), 3)
        git_cpu = round(git_log_cpu(repo), 3)
        backfill = timed_backfill(repo)
        ratio = round(backfill["seconds"] / git_log, 2) if "seconds" in backfill else None
        cpu_ratio = (round(backfill["cpu_s"] / git_cpu, 2)
                     if backfill.get("cpu_s") and git_cpu > 0 else None)
        rounds.append({"git_log_s": git_log, "git_log_cpu_s": git_cpu, "backfill": backfill,
                       "ratio": ratio, "cpu_ratio": cpu_ratio})
    measured = sorted((r for r in rounds if r["ratio"] is not None),
                      key=lambda r: float(r["ratio"]))
    middle = measured[len(measured) // 2] if measured else rounds[0]
    result["rounds"] = [{"git_log_s": r["git_log_s"], "ratio": r["ratio"],
                         "git_log_cpu_s": r["git_log_cpu_s"], "cpu_ratio": r["cpu_ratio"],
                         "seconds": r["backfill"].get("seconds"),
                         "cpu_s": r["backfill"].get("cpu_s"),
                         "loadavg_1m": r["backfill"].get("loadavg_1m"),
                         "digest": r["backfill"].get("digest")} for r in rounds]
    result["git_log_s"], result["backfill"] = middle["git_log_s"], middle["backfill"]
    if "seconds" in result["backfill"]:
        result["ratio"] = round(result["backfill"]["seconds"] / result["git_log_s"], 2)
        if args.load:
            loaded = loaded_backfill(repo, args.load)
            if "seconds" in loaded:
                loaded["ratio_to_idle"] = round(loaded["seconds"]
                                                / result["backfill"]["seconds"], 2)
            result["loaded_backfill"] = loaded
    if samples <= 0:
        return result
    if not args.single_backfill:
        repo = clone(src, work / "ingest", base)
        prepared = timed_backfill(repo)
        if "error" in prepared:
            result["ingest_commit"] = {"error": f"backfill to HEAD~{samples}: {prepared['error']}"}
            return result
    elif "error" in result["backfill"]:
        result["ingest_commit"] = {"error": "no store: the backfill failed"}
        return result
    try:
        result["ingest_commit"] = ingest_latency(repo, head, base)
    except RuntimeError as exc:
        result["ingest_commit"] = {"error": str(exc)}
    if not args.single_backfill:
        result["ingest_commit"]["backfill_to_base"] = prepared
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="*", type=Path, help="existing git repositories")
    parser.add_argument("--generate", type=int, metavar="N",
                        help="also benchmark a generated history of N commits")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--ingest-samples", type=int, default=20, metavar="K",
                        help="ingest-commit the commits after HEAD~K (default 20; 0 skips)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of (git log, backfill): the median round is reported")
    parser.add_argument("--single-backfill", action="store_true",
                        help="time git log and the backfill over HEAD~K instead of HEAD and "
                             "reuse that store for ingest-commit: one backfill, not two")
    parser.add_argument("--load", type=int, default=2, metavar="N",
                        help="also backfill again beside N CPU-bound processes and report "
                             "the ratio to the idle run (default 2; 0 skips)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary clones")
    args = parser.parse_args(argv)
    if not args.repos and not args.generate:
        parser.error("give a repository path or --generate N")
    work = Path(tempfile.mkdtemp(prefix="warpline-bench-"))
    report: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                              "environment": environment(), "results": []}
    try:
        targets: list[tuple[str, Path, dict[str, Any] | None]] = []
        if args.generate:
            from genhistory import generate_with_stats, summary

            gen = work / "generated"
            started = time.perf_counter()
            _, stats = generate_with_stats(gen, args.generate, args.seed)
            shape = {"seconds": round(time.perf_counter() - started, 1), **summary(stats, gen)}
            targets.append((f"generated:{args.generate}:seed{args.seed}", gen, shape))
        targets.extend((str(p), p.resolve(), None) for p in args.repos)
        for index, (label, src, generated) in enumerate(targets):
            result = bench_repo(label, src, work / f"r{index}", args)
            if generated is not None:
                result["generated"] = generated
            report["results"].append(result)
            print("\n".join(format_result(result)), flush=True)
    finally:
        if args.keep:
            print(f"clones kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    write_report("backfill", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
