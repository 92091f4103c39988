"""Start-up cost of ``warpline-mcp``, beside a bare interpreter start measured in the same run.

    python bench/bench_mcp_startup.py [--repo PATH] [-n 15] [--command "warpline-mcp"]

Loomweave spawns ``warpline-mcp`` afresh for every federation call, so start-up is part of
every answer. Measured, N times each, medians printed:

* ``python -c pass``                     spawn -> exit (the floor)
* spawn -> ``initialize`` response
* spawn -> first ``tools/call`` response (``churn`` on the repository's changed entities)
* the tool's own work, in-process in a fresh interpreter: the imports the call needs and
  the ``call_tool`` itself (store open, catch-up, query)

Target: first ``tools/call`` <= 2.5 x (bare start + the tool's own work). Without
``--repo`` a small fixture repository is built in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import shlex
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
import warpline.service.history.churn, warpline.service.shared.validation
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


class Server:
    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)

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


def time_bare() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def time_initialize(command: list[str]) -> float:
    started = time.perf_counter()
    server = Server(command)
    server.send(INIT)
    assert "result" in server.receive()
    elapsed = time.perf_counter() - started
    server.close()
    return elapsed


def time_tools_list(command: list[str]) -> float:
    started = time.perf_counter()
    server = Server(command)
    server.send(INIT)
    server.receive()
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    reply = server.receive()
    elapsed = time.perf_counter() - started
    server.close()
    if "result" not in reply:
        raise SystemExit(f"tools/list failed: {json.dumps(reply)[:400]}")
    return elapsed


def time_first_call(command: list[str], arguments: dict[str, Any]) -> float:
    started = time.perf_counter()
    server = Server(command)
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


def time_in_process(arguments: dict[str, Any]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", IN_PROCESS, json.dumps(arguments)],
                          check=True, capture_output=True, text=True)
    timings: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return timings


def churn_arguments(repo: Path) -> dict[str, Any]:
    from warpline.registry import call_tool

    envelope = call_tool("changed", {"repo": str(repo), "limit": 20})  # also warms the store
    refs = [{"kind": "locator", "value": item["entity"]["locator"]}
            for item in envelope["data"]["items"]]
    return {"repo": str(repo), "entity_refs": refs}


def run(repo: Path, n: int, command: list[str]) -> int:
    arguments = churn_arguments(repo)
    time_bare(), time_first_call(command, arguments)  # warm-up: page cache, .pyc files
    # Interleaved rounds, so a busy machine slows every measurement alike.
    rounds: dict[str, list[float]] = {k: [] for k in ("bare", "init", "list", "first",
                                                       "imports", "call", "warm")}
    for _ in range(n):
        rounds["bare"].append(time_bare())
        rounds["init"].append(time_initialize(command))
        rounds["list"].append(time_tools_list(command))
        rounds["first"].append(time_first_call(command, arguments))
        sample = time_in_process(arguments)
        rounds["imports"].append(sample["imports"])
        rounds["call"].append(sample["call"])
        rounds["warm"].append(sample["warm_call"])
    bare, init, listed, first, imports, call, warm = (
        statistics.median(rounds[k]) for k in rounds)
    work = imports + call
    budget = TARGET_RATIO * (bare + work)
    ms = 1000.0
    print(f"warpline-mcp start-up  ({' '.join(command)}; repo {repo}; "
          f"{len(arguments['entity_refs'])} refs; median of {n})")
    print(f"  python -c pass                       {bare * ms:8.1f} ms")
    print(f"  spawn -> initialize response          {init * ms:8.1f} ms   "
          f"{init / bare:5.2f}x bare")
    print(f"  spawn -> tools/list response          {listed * ms:8.1f} ms   "
          f"{listed / bare:5.2f}x bare")
    print(f"  spawn -> first tools/call (churn)     {first * ms:8.1f} ms   "
          f"{first / bare:5.2f}x bare")
    print(f"  tool's own work, in-process           {work * ms:8.1f} ms   "
          f"(imports {imports * ms:.1f} + call {call * ms:.1f}; warm call {warm * ms:.1f})")
    print(f"  first tools/call / (bare + work)      {first / (bare + work):8.2f}x  "
          f"(target <= {TARGET_RATIO}x, budget {budget * ms:.1f} ms)")
    print(f"  MCP overhead beyond bare + work       {(first - bare - work) * ms:8.1f} ms")
    return 0 if first <= budget else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=None)
    parser.add_argument("-n", type=int, default=15)
    parser.add_argument("--command", default=f"{sys.executable} -m warpline.mcp")
    args = parser.parse_args(argv)
    command = shlex.split(args.command)
    if args.repo is not None:
        return run(args.repo.resolve(), args.n, command)
    with tempfile.TemporaryDirectory(prefix="warpline-bench-") as tmp:
        return run(build_fixture(Path(tmp) / "repo"), args.n, command)


if __name__ == "__main__":
    sys.exit(main())
