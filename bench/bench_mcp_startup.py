"""Start-up cost of ``warpline-mcp``, beside a bare interpreter start measured in the same run.

    python bench/bench_mcp_startup.py [--repo PATH] [-n 15] [--refs 100] [--big-refs 50000]
                                      [--command "warpline-mcp"] [--old-tree DIR]

Loomweave spawns ``warpline-mcp`` afresh for every federation call and a git hook runs a
fresh ``warpline`` per commit, so start-up is part of every answer. Measured N times each,
interleaved (a busy machine slows every figure alike), medians printed, each beside its
lower bound from the same run:

* ``python -S -c pass`` and ``python -c pass``   spawn -> exit (the floors; ``-S`` skips
  site-packages and whatever ``.pth`` files the environment installs)
* spawn -> ``initialize`` response; spawn -> ``tools/list`` response
* spawn -> first ``tools/call`` response: ``churn`` of ``--refs`` stored locators (the
  issue-11 target, <= 200 ms), and of ``--big-refs`` refs (stored ones, then never-seen
  ones; the default page of 100 items, and every item with ``limit`` = all; target
  <= 0.8 s for the page) against bare start + the grouped SQL count over the whole store
* the tool's own work, in-process in a fresh interpreter: the imports the call needs and
  the ``call_tool`` itself (store open, catch-up, query)
* the CLI in a fresh process: ``warpline backfill`` on the caught-up store (target
  <= 0.3 s) and ``warpline reverify HEAD~3..HEAD`` (cold), against ``python -c pass``

With ``--old-tree DIR`` (a checkout of an earlier build) every warpline measurement runs
twice per round, interleaved: once as installed, once with ``PYTHONPATH=DIR`` (the old
build), and both columns are printed.

Target: first ``tools/call`` <= 2.5 x (bare start + the tool's own work). Without
``--repo`` a small fixture repository is built in a temporary directory. The load average
is printed before and after: say it beside any figure you record.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_RATIO = 2.5

IN_PROCESS = """
import json, sys, time
t0 = time.perf_counter()
from warpline.registry import call_tool
# what a churn call imports
import warpline.service.history.churn
t1 = time.perf_counter()
call_tool("churn", json.loads(sys.argv[1]))
t2 = time.perf_counter()
call_tool("churn", json.loads(sys.argv[1]))
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "call": t2 - t1, "warm_call": t3 - t2}))
"""


def build_fixture(root: Path, commits: int = 30) -> Path:
    import pygit2

    repo = pygit2.init_repository(str(root))
    sig = pygit2.Signature("Bench", "bench@example.com", 1_750_000_000, 0)
    parents: list[Any] = []
    for i in range(commits):
        for m in range(4):
            body = "".join(f"def f{k}(x):\n    return x + {k * (i if k == m else 1)}\n\n\n"
                           for k in range(8))
            path = root / "pkg" / f"mod{m}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
        repo.index.add_all()
        repo.index.write()
        tree = repo.index.write_tree()
        sig = pygit2.Signature("Bench", "bench@example.com", 1_750_000_000 + i * 60, 0)
        parents = [repo.create_commit("HEAD", sig, sig, f"commit {i}", tree, parents)]
    return root


Env = dict[str, str] | None  # a measured process's environment (None: this one's)


class Server:
    def __init__(self, command: list[str], env: Env = None) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}


def time_bare(*flags: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, *flags, "-c", "pass"], check=True)
    return time.perf_counter() - started


def time_cli(argv: list[str], env: Env = None) -> float:
    """A fresh ``warpline`` process (the console script beside this interpreter)."""
    script = Path(sys.executable).parent / "warpline"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "warpline.cli"]
    started = time.perf_counter()
    done = subprocess.run([*command, *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"warpline {' '.join(argv)} failed: {done.stderr[-400:]}")
    return elapsed


def time_sql_bound(repo: Path) -> float:
    """What any churn answer must read: the grouped count over every stored event."""
    started = time.perf_counter()
    with sqlite3.connect(repo / ".weft" / "warpline" / "warpline.db") as conn:
        conn.execute("SELECT entity_id, count(*), max(changed_at) FROM change_events "
                     "GROUP BY entity_id").fetchall()
    return time.perf_counter() - started


def time_initialize(command: list[str], env: Env = None) -> float:
    started = time.perf_counter()
    server = Server(command, env)
    server.send(INIT)
    assert "result" in server.receive()
    elapsed = time.perf_counter() - started
    server.close()
    return elapsed


def time_tools_list(command: list[str], env: Env = None) -> float:
    started = time.perf_counter()
    server = Server(command, env)
    server.send(INIT)
    server.receive()
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    reply = server.receive()
    elapsed = time.perf_counter() - started
    server.close()
    if "result" not in reply:
        raise SystemExit(f"tools/list failed: {json.dumps(reply)[:400]}")
    return elapsed


def time_first_call(command: list[str], arguments: dict[str, Any], env: Env = None) -> float:
    started = time.perf_counter()
    server = Server(command, env)
    server.send(INIT)
    server.receive()
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "churn", "arguments": arguments}})
    reply = server.receive()
    elapsed = time.perf_counter() - started
    server.close()
    if "result" not in reply:
        raise SystemExit(f"tools/call failed: {json.dumps(reply)[:400]}")
    return elapsed


def time_in_process(arguments: dict[str, Any], env: Env = None) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", IN_PROCESS, json.dumps(arguments)],
                          check=True, capture_output=True, text=True, env=env)
    timings: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return timings


def stored_refs(repo: Path, total: int) -> list[str]:
    """``total`` refs: the store's locators first, then never-observed ones."""
    from warpline.registry import call_tool

    call_tool("changed", {"repo": str(repo), "limit": 1})  # creates/catches up the store
    with sqlite3.connect(repo / ".weft" / "warpline" / "warpline.db") as conn:
        known = [row[0] for row in conn.execute(
            "SELECT locator FROM entities ORDER BY id LIMIT ?", (total,))]
    unknown = [f"python:function:never.seen.f{n}" for n in range(max(total - len(known), 0))]
    return (known + unknown)[:total]


WARPLINE_KEYS = ("init", "list", "first", "imports", "call", "warm", "big", "big_all",
                 "backfill", "reverify")


def measure_warpline(rounds: dict[str, list[float]], command: list[str], env: Env,
                     calls: dict[str, dict[str, Any]], cli: dict[str, list[str]],
                     big: bool) -> None:
    """One round of every warpline measurement, in one build (``env``)."""
    rounds["init"].append(time_initialize(command, env))
    rounds["list"].append(time_tools_list(command, env))
    rounds["first"].append(time_first_call(command, calls["first"], env))
    sample = time_in_process(calls["first"], env)
    rounds["imports"].append(sample["imports"])
    rounds["call"].append(sample["call"])
    rounds["warm"].append(sample["warm_call"])
    rounds["backfill"].append(time_cli(cli["backfill"], env))
    rounds["reverify"].append(time_cli(cli["reverify"], env))
    if big:
        rounds["big"].append(time_first_call(command, calls["big"], env))
        rounds["big_all"].append(time_first_call(command, calls["big_all"], env))


def run(repo: Path, n: int, command: list[str], refs: int, big_refs: int,
        old_tree: Path | None = None) -> int:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    arguments = {"repo": str(repo), "entity_refs": stored_refs(repo, refs)}
    big_refs_list = stored_refs(repo, big_refs)
    big = {"repo": str(repo), "entity_refs": big_refs_list}
    calls: dict[str, dict[str, Any]] = {"first": arguments, "big": big,
                                        "big_all": {**big, "limit": len(big_refs_list)}}
    reverify = ["reverify", "HEAD~3..HEAD", "--repo", str(repo), "--json"]
    cli = {"backfill": ["backfill", "--repo", str(repo)], "reverify": reverify}
    builds: dict[str, Env] = {"new": None}
    if old_tree is not None:
        builds["old"] = {**os.environ, "PYTHONPATH": str(old_tree.resolve())}
    for env in builds.values():  # warm-up: page cache, .pyc files
        time_bare(), time_first_call(command, arguments, env)
        time_cli(reverify, env)  # its first run may capture an edge snapshot
    big_n = max(1, n // 3)
    # Interleaved rounds, so a busy machine slows every measurement alike.
    rounds: dict[str, list[float]] = {k: [] for k in ("bare_s", "bare", "sql")}
    per_build: dict[str, dict[str, list[float]]] = {
        name: {k: [] for k in WARPLINE_KEYS} for name in builds}
    for index in range(n):
        rounds["bare_s"].append(time_bare("-S"))
        rounds["bare"].append(time_bare())
        rounds["sql"].append(time_sql_bound(repo))
        for name, env in builds.items():
            measure_warpline(per_build[name], command, env, calls, cli, index < big_n)
    m = {k: statistics.median(v) for k, v in (rounds | per_build["new"]).items()}
    report(m, command, repo, n, big_n, refs, big_refs)
    if "old" in builds:
        old = {k: statistics.median(v) for k, v in (rounds | per_build["old"]).items()}
        print(f"old build (PYTHONPATH={old_tree}), same rounds: old -> new")
        for label, key in (("spawn -> initialize", "init"), ("spawn -> tools/list", "list"),
                           (f"spawn -> first churn ({refs} refs)", "first"),
                           ("  in-process imports", "imports"), ("  in-process call", "call"),
                           ("  warm call", "warm"), (f"spawn -> churn {big_refs}, 1 page", "big"),
                           (f"spawn -> churn {big_refs}, every item", "big_all"),
                           ("backfill, caught up", "backfill"), ("reverify (cold)", "reverify")):
            print(f"  {label:38} {old[key] * 1000:8.1f} -> {m[key] * 1000:8.1f} ms "
                  f"({(m[key] / old[key] - 1) * 100:+.0f}%)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if m["first"] <= TARGET_RATIO * (m["bare"] + m["imports"] + m["call"]) else 1


def report(m: dict[str, float], command: list[str], repo: Path, n: int, big_n: int,
           refs: int, big_refs: int) -> None:
    bare, work = m["bare"], m["imports"] + m["call"]
    budget = TARGET_RATIO * (bare + work)
    ms = 1000.0

    def row(label: str, key: str, bound: float, bound_name: str, extra: str = "") -> None:
        print(f"  {label:38} {m[key] * ms:8.1f} ms  {m[key] / bound:6.2f}x {bound_name}"
              + extra)

    print(f"warpline-mcp start-up  ({' '.join(command)}; repo {repo}; "
          f"{refs} refs; median of {n}, big calls of {big_n})")
    print(f"  python -S -c pass                      {m['bare_s'] * ms:8.1f} ms")
    print(f"  python -c pass                         {bare * ms:8.1f} ms   (the bound below)")
    row("spawn -> initialize response", "init", bare, "bare")
    row("spawn -> tools/list response", "list", bare, "bare")
    row(f"spawn -> first tools/call (churn {refs})", "first", bare, "bare",
        "   (target <= 200 ms)")
    print(f"  tool's own work, in-process            {work * ms:8.1f} ms   "
          f"(imports {m['imports'] * ms:.1f} + call {m['call'] * ms:.1f}; "
          f"warm call {m['warm'] * ms:.1f})")
    print(f"  first tools/call / (bare + work)       {m['first'] / (bare + work):8.2f}x  "
          f"(target <= {TARGET_RATIO}x, budget {budget * ms:.1f} ms)")
    print(f"  MCP overhead beyond bare + work        {(m['first'] - bare - work) * ms:8.1f} ms")
    floor = bare + m["sql"]
    print(f"  grouped SQL count, whole store         {m['sql'] * ms:8.1f} ms   "
          f"(bare + SQL = {floor * ms:.1f} ms, the bound of the big calls)")
    row(f"spawn -> churn {big_refs} refs, 1 page", "big", floor, "bare+SQL",
        "   (target <= 800 ms)")
    row(f"spawn -> churn {big_refs} refs, every item", "big_all", floor, "bare+SQL")
    row("warpline backfill, caught up", "backfill", bare, "bare", "   (target <= 300 ms)")
    row("warpline reverify HEAD~3..HEAD (cold)", "reverify", bare, "bare")
    # The targets assume the plain interpreter's start: what an environment's .pth hooks
    # add to every start (python -c pass minus python -S -c pass) is not warpline's.
    hook = bare - m["bare_s"]
    print(f"  net of the environment's start-up hook ({hook * ms:.1f} ms per process):")
    for label, key, target in ((f"first tools/call (churn {refs})", "first", 0.2),
                               (f"churn {big_refs} refs, 1 page", "big", 0.8),
                               ("backfill, caught up", "backfill", 0.3)):
        net = m[key] - hook
        print(f"    {label:36} {net * ms:8.1f} ms   (target <= {target * ms:.0f} ms: "
              f"{'met' if net <= target else 'NOT met'})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=None)
    parser.add_argument("-n", type=int, default=15)
    parser.add_argument("--refs", type=int, default=100, help="refs of the first call")
    parser.add_argument("--big-refs", type=int, default=50_000, help="refs of the big call")
    parser.add_argument("--command", default=f"{sys.executable} -m warpline.mcp")
    parser.add_argument("--old-tree", type=Path, default=None,
                        help="a checkout of an earlier build, measured interleaved "
                        "(PYTHONPATH=DIR)")
    args = parser.parse_args(argv)
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        # Without cached bytecode every child compiles warpline from source (~50 modules):
        # an installed warpline has its .pyc files, so measure that.
        print("note: PYTHONDONTWRITEBYTECODE was set; unset for the measured processes")
    command = shlex.split(args.command)
    repo = args.repo.resolve() if args.repo is not None else None
    old_tree = args.old_tree.resolve() if args.old_tree is not None else None
    # Every measured child puts its working directory first on sys.path (``-c``, ``-m``):
    # run from a checkout, that checkout's warpline would shadow ``--old-tree``'s (both
    # columns then measure the same build). A neutral directory for every child.
    os.chdir(tempfile.gettempdir())
    if repo is not None:
        return run(repo, args.n, command, args.refs, args.big_refs, old_tree)
    with tempfile.TemporaryDirectory(prefix="warpline-bench-") as tmp:
        return run(build_fixture(Path(tmp) / "repo"), args.n, command, args.refs,
                   args.big_refs, old_tree)


if __name__ == "__main__":
    sys.exit(main())
