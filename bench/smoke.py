"""Run every benchmark once on a tiny input, so none can rot unnoticed (CI runs this).

    python bench/smoke.py

A smoke run checks that each script still runs to the end; it reads no figure. A script
may exit 1 to report a missed ratio target (that is a measurement, not a crash), so the
check is: exit status 0 or 1, no traceback, and some output.
Every ``bench_*.py`` must have an entry here (the run fails otherwise).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent

TINY: dict[str, list[str]] = {
    "genhistory.py": ["{tmp}/history", "--commits", "30"],
    "bench_backfill.py": ["--generate", "30", "--ingest-samples", "1", "--single-backfill"],
    "bench_churn.py": ["--generate", "30", "--refs", "100", "--repeat", "1"],
    "bench_freshness.py": ["--generate", "30", "--items", "20", "--records", "3",
                           "--repeat", "1"],
    "bench_graph.py": ["--modules", "20", "--synthetic-edges", "200", "--no-loomweave"],
    "bench_hook.py": ["--commits", "2", "--files", "5"],
    "bench_mcp_startup.py": ["-n", "1", "--big-refs", "1000"],
    "bench_work.py": ["--seis", "1,5", "--issues", "3", "--repeat", "1"],
    "bench_caps.py": ["--mb", "1", "--refs", "1000"],
    "bench_memory_limit.py": ["--generate", "30", "--limit-mb", "300"],
    "bench_lineage.py": ["{tmp}/history", "--sample", "3", "--no-timing"],
    "profile_walk.py": ["{tmp}/history", "--limit", "30"],
    "bench_attribution_truth.py": ["{tmp}/history", "--commits", "20", "--sample", "2"],
    "bench_cosmetic_truth.py": ["{tmp}/history", "--commits", "20", "--sample", "2"],
    "bench_facts.py": ["{tmp}/history", "--check-derived"],
    "bench_history_truth.py": ["{tmp}/history"],
    "bench_coupling.py": ["{tmp}/history"],
    "bench_rust_ids.py": ["{tmp}/history"],
    "bench_ctags_spans.py": ["{tmp}/history", "--language", "go"],
    # A tiny built history in Go, Java, Rust and TS/JS (ctags, loomweave, node typescript).
    "bench_lang_truth.py": ["--tiny"],
    "bench_ts_edges.py": ["--tiny"],
    "bench_uniqueness.py": ["{tmp}/history", "--commits", "20"],
    "bench_ordinal_shifts.py": ["{tmp}/history"],
    "bench_testmap.py": ["{tmp}/history", "--runs", "1", "--variants", "warpline_record"],
    # The real requests suite (the corpus beside the clone), offline, a few edits.
    "bench_selection.py": ["--tiny"],
    "bench_mapsync.py": ["--tiny"],
    "bench_runnable.py": ["--workdir", "{tmp}/runnable", "--corpus", "requests", "--ranges", "1",
                          "--no-capture"],
    "bench_filters.py": ["{tmp}/history", "--counts", "1,10"],
    "bench_mutants.py": ["--limit", "2"],
    "bench_mcp_fuzz.py": ["--lines", "200"],
    "bench_hostile_remote.py": ["--cases", "distinct,bomb,note", "--blobs", "3",
                                "--blob-mb", "1", "--note-mb", "1"],
    "bench_shallow_deepen.py": ["--origin", "{tmp}/history", "--depths", "1,5",
                                "--deepen", "3"],
    # Java (issue 37): javac's truth and two mutants, on the tests' fixture Maven project.
    "bench_java_edges.py": ["--tiny"],
    "bench_java_mutants.py": ["--tiny"],
    # gotruth is built here (golang.org/x/tools from the Go module proxy).
    "bench_go_edges.py": ["--tiny", "--goos", "linux"],
    # rust-analyzer's LSIF of a tiny workspace; the fixture workspace's suite, 2 mutants.
    "bench_rust_edges.py": ["--tiny", "--no-loomweave"],
    "bench_rust_mutants.py": ["--tiny"],
    "bench_go_mutants.py": ["--tiny"],
    # A small mocha project (tests/jsfixture.py), the runners from the tests' pinned cache.
    "bench_js_mutants.py": ["--tiny"],
}


def main() -> int:
    scripts = sorted(p.name for p in BENCH.glob("bench_*.py"))
    missing = [name for name in scripts if name not in TINY]
    if missing:
        print(f"bench smoke: no tiny input for {', '.join(missing)}", file=sys.stderr)
        return 1
    failed = []
    with tempfile.TemporaryDirectory(prefix="warpline-bench-smoke-") as tmp:
        for name, args in TINY.items():
            started = time.perf_counter()
            done = subprocess.run([sys.executable, str(BENCH / name),
                                   *(a.format(tmp=tmp) for a in args)],
                                  capture_output=True, text=True, timeout=600)
            crashed = done.returncode not in (0, 1) or "Traceback" in done.stderr \
                or (not done.stdout.strip() and not done.stderr.strip())
            verdict = "CRASH" if crashed else "ok"
            print(f"  {verdict:5} {name:24} exit {done.returncode} "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
            if crashed:
                failed.append(name)
                print(done.stdout[-2000:] + done.stderr[-4000:], file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
