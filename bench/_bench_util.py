"""Helpers shared by the benchmarks: git plumbing, wall-clock timing, the printed report."""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pygit2


def python_blobs(commit: pygit2.Commit) -> list[pygit2.Blob]:
    """Every ``*.py`` blob of ``commit``'s tree."""
    found, stack = [], [commit.tree]
    while stack:
        for entry in stack.pop():
            if isinstance(entry, pygit2.Tree):
                stack.append(entry)
            elif isinstance(entry, pygit2.Blob) and (entry.name or "").endswith(".py"):
                found.append(entry)
    return found


def git(*args: str, cwd: Path | None = None) -> str:
    """Run git and return stdout; a failure raises with git's own message."""
    exe = shutil.which("git")
    if exe is None:
        raise RuntimeError("git is not on PATH; the lower bound needs `git log --numstat`")
    done = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def clone(src: Path, dest: Path, head: str) -> Path:
    """A local clone (objects hard-linked, same packs) whose current branch is at ``head``."""
    git("clone", "-q", "--no-checkout", "--local", str(src), str(dest))
    git("reset", "-q", "--soft", head, cwd=dest)
    return dest


def head_sha(path: Path) -> str:
    return git("rev-parse", "HEAD^{commit}", cwd=path).strip()


def wall(argv: Sequence[str], *, cwd: Path | None = None, stdout: Any = subprocess.DEVNULL
         ) -> tuple[float, int, str]:
    """Wall time of one fresh process: (seconds, exit code, last stderr line)."""
    started = time.perf_counter()
    done = subprocess.run(list(argv), cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    tail = done.stderr.strip().splitlines()[-1:] if done.returncode else []
    return seconds, done.returncode, tail[0] if tail else ""


def git_log_numstat(path: Path, repeat: int) -> float:
    """Best of ``repeat`` runs of the lower bound, after one untimed warm-up run."""
    exe = shutil.which("git") or "git"
    argv = [exe, "-C", str(path), "log", "--numstat", "--format=%H", "HEAD"]
    best = float("inf")
    for attempt in range(repeat + 1):
        with open(os.devnull, "wb") as sink:
            seconds, code, err = wall(argv, stdout=sink)
        if code:
            raise RuntimeError(f"git log --numstat failed: {err}")
        if attempt:
            best = min(best, seconds)
    return best


def git_log_cpu(path: Path) -> float:
    """The CPU time (user + sys) of one run of the lower bound: beside a wall-time ratio
    on a busy machine, the work each side does."""
    import resource

    exe = shutil.which("git") or "git"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "wb") as sink:
        subprocess.run([exe, "-C", str(path), "log", "--numstat", "--format=%H", "HEAD"],
                       stdout=sink, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def history_counts(path: Path) -> dict[str, int]:
    commits = int(git("rev-list", "--count", "HEAD", cwd=path))
    merges = int(git("rev-list", "--count", "--merges", "HEAD", cwd=path))
    return {"commits": commits, "merges": merges}


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p90_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


def environment() -> dict[str, str]:
    try:
        git_version = git("--version").strip()
    except RuntimeError:
        git_version = "unavailable"
    return {
        "python": platform.python_version(),
        "pygit2": str(getattr(pygit2, "__version__", "?")),
        "libgit2": pygit2.LIBGIT2_VERSION,
        "git": git_version,
        "platform": platform.platform(),
        "cpus": str(os.cpu_count()),
    }


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def format_result(r: dict[str, Any]) -> list[str]:
    """The human-readable lines for one repository (pure; printing happens elsewhere)."""
    at = r.get("measured_at", r["head"])
    out = [f"repo {r['label']}: {r['commits']} commits ({r['merges']} merges) at {at[:12]}"]
    gl = r["git_log_s"]
    out.append(f"  git log --numstat    {gl:8.2f} s  {r['commits'] / gl:9.0f} commits/s"
               "   (lower bound)")
    bf = r.get("backfill")
    if bf and "seconds" in bf:
        s = bf["seconds"]
        events = bf.get("events_written")
        ev = f"  {events} events, {events / s:.0f} events/s" if events is not None else ""
        out.append(f"  warpline backfill    {s:8.2f} s  {bf['commits_ingested'] / s:9.0f} commits/s"
                   f"{ev}")
        out.append(f"  ratio backfill / git log = {s / gl:.2f}x   target <= 4x: "
                   f"{_verdict(s / gl <= 4)}")
        if "cpu_s" in bf:
            out.append(f"  process tree: cpu {bf['cpu_s']:.1f} s (writer {bf['cpu_writer_s']:.1f}"
                       f", workers {bf['cpu_workers_s']:.1f}), peak RSS {bf['peak_rss_mb']:.0f}"
                       f" MB (PSS {bf['peak_pss_mb']:.0f} MB, {bf['peak_processes']} processes,"
                       f" each {bf.get('peak_rss_each_mb')} MB, at the peak"
                       f" {bf.get('rss_at_peak_mb')} MB)"
                       f"   target RSS <= 300 MB: {_verdict(bf['peak_rss_mb'] <= 300)}")
            out.append(f"  load average (1 min) before/after: {bf['loadavg_1m']}")
        for n, rnd in enumerate(r.get("rounds") or []):
            dg = rnd.get("digest") or {}
            cpu = (f" (cpu {rnd['cpu_s']} / {rnd['git_log_cpu_s']} s = {rnd['cpu_ratio']}x)"
                   if rnd.get("cpu_ratio") is not None else "")
            out.append(f"    round {n + 1}: git log {rnd['git_log_s']:.2f} s, backfill "
                       f"{rnd['seconds']} s = {rnd['ratio']}x{cpu}, cpu {rnd['cpu_s']} s, load "
                       f"{rnd['loadavg_1m']}, digests {str(dg.get('sha256'))[:16]} / "
                       f"{str(dg.get('lineage_sha256'))[:16]}")
        if "digest" in bf:
            d = bf["digest"]
            out.append(f"  event digest {d['sha256'][:16]}  ({d['events']} events, "
                       f"{d['commits']} commits), lineage digest "
                       f"{str(d.get('lineage_sha256'))[:16]}")
        lb = r.get("loaded_backfill")
        if lb and "seconds" in lb:
            same = all(lb.get("digest", {}).get(key) == bf.get("digest", {}).get(key)
                       for key in ("sha256", "lineage_sha256"))
            out.append(f"  beside {lb['busy_processes']} busy processes: {lb['seconds']:.2f} s = "
                       f"{lb['ratio_to_idle']:.2f}x its idle run   target <= 2x: "
                       f"{_verdict(lb['ratio_to_idle'] <= 2)}; cpu {lb['cpu_s']:.1f} s; "
                       f"digest {'same' if same else 'DIFFERENT'}")
        elif lb:
            out.append(f"  beside busy processes: not measured: {lb.get('error')}")
        if bf.get("failures") or bf.get("unparsed_files"):
            out.append(f"  failures {bf.get('failures')}, "
                       f"unparsed files {bf.get('unparsed_files')}")
    elif bf:
        out.append(f"  warpline backfill    not measured: {bf.get('error')}")
    ing = r.get("ingest_commit")
    if ing and ing.get("latency"):
        lat = ing["latency"]
        out.append(f"  ingest-commit ({lat['n']} commits after {ing['base'][:12]}): "
                   f"p50 {lat['p50_ms']:.0f} ms  p90 {lat['p90_ms']:.0f} ms  "
                   f"max {lat['max_ms']:.0f} ms   target p50 <= 100 ms: "
                   f"{_verdict(lat['p50_ms'] <= 100)}")
        py = ing.get("latency_python") or {}
        out.append(f"    of them changing a .py file: {py.get('n', 0)}"
                   + (f", p50 {py['p50_ms']:.0f} ms  p90 {py['p90_ms']:.0f} ms  "
                      f"max {py['max_ms']:.0f} ms" if py else ""))
        bounds = ing.get("baselines", {})
        for name, base in bounds.items():
            out.append(f"    baseline {name}: p50 {base['p50_ms']:.0f} ms  "
                       f"max {base['max_ms']:.0f} ms")
        if "python -S -c pass" in bounds and "python -c pass" in bounds:
            # The target assumes the plain interpreter's start; a .pth hook of the
            # environment (python -c pass minus python -S -c pass) is not warpline's.
            hook = bounds["python -c pass"]["p50_ms"] - bounds["python -S -c pass"]["p50_ms"]
            net = lat["p50_ms"] - hook
            out.append(f"    p50 net of the environment's start-up hook ({hook:.0f} ms): "
                       f"{net:.0f} ms   target <= 100 ms: {_verdict(net <= 100)}")
        if "stdlib floor + pygit2" in bounds:
            floor = bounds["stdlib floor + pygit2"]["p50_ms"]
            out.append(f"    p50 above the floor of the standard library and pygit2 "
                       f"({floor:.0f} ms): {lat['p50_ms'] - floor:.0f} ms (warpline's own)")
        stale, modules = ing.get("uncompiled_modules") or (0, 0)
        if stale:
            out.append(f"    warning: {stale} of warpline's {modules} modules have no "
                       "up-to-date bytecode, so each process compiled them and these "
                       "figures include that (PYTHONDONTWRITEBYTECODE=1 on an editable "
                       "install?); `python -m compileall` the package first")
        if ing.get("errors"):
            out.append(f"    {len(ing['errors'])} failed, first: {ing['errors'][0]}")
    elif ing:
        out.append(f"  ingest-commit        not measured: {ing.get('error')}")
    return out


OUT_DIR = Path(__file__).resolve().parent / "out"


def write_report(prefix: str, report: dict[str, Any]) -> Path:
    """``report`` as JSON in bench/out/, named by ``prefix`` and the UTC time; printed."""
    OUT_DIR.mkdir(exist_ok=True)
    out = OUT_DIR / f"{prefix}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return out
