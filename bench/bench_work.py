"""Work enrichment from a real filigree dashboard: how long ``enrich_work`` takes.

    python bench/bench_work.py [--seis 1,10,100,500] [--issues 60] [--repeat 5]

Starts ``filigree dashboard`` on a loopback port in a temporary repository (the same
harness the tests use), creates ``--issues`` issues and links them to the SEIs (each SEI
gets one or two issues), then times ``enrich_work`` for worklists of each size: the
association lookups plus one issue fetch per distinct linked issue, in parallel, under the
overall deadline. The lower bound printed beside it is one bare ``GET /api/health`` round
trip on a kept-alive connection. It also times the two failure modes: a dead port and a
server that accepts connections and never answers (the deadline is what bounds that).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from tests.filigree_server import filigree_dashboard, free_loopback_port
from warpline.federation.filigree import ENV_VAR
from warpline.service.admin.work import DEFAULT_DEADLINE_S, enrich_work
from warpline.service.shared.context import open_context


def _sei(n: int) -> str:
    return "loomweave:eid:" + hashlib.sha256(f"bench-{n}".encode()).hexdigest()[:32]


def _timed(run: object, repeat: int) -> tuple[float, float]:
    assert callable(run)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def _hanging() -> tuple[str, socket.socket]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}", listener


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seis", default="1,10,100,500")
    parser.add_argument("--issues", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.seis.split(",")]
    linked = max(sizes)
    with tempfile.TemporaryDirectory(prefix="warpline-bench-work-") as tmp, \
            filigree_dashboard(Path(tmp) / "repo") as server:
        print(f"filigree dashboard ready in {server.startup_s:.2f}s at {server.base_url}")
        started = time.perf_counter()
        issues = [server.create_issue(f"issue {n}", priority=n % 5) for n in range(args.issues)]
        for n in range(linked):
            server.associate(issues[n % len(issues)], _sei(n))
            if n % 3 == 0:
                server.associate(issues[(n * 7 + 1) % len(issues)], _sei(n))
        print(f"seeded {len(issues)} issues linked to {linked} SEIs in "
              f"{time.perf_counter() - started:.1f}s")
        os.environ[ENV_VAR] = server.base_url
        with httpx.Client(base_url=server.base_url, trust_env=False) as client:
            client.get("/api/health")
            floor, _ = _timed(lambda: client.get("/api/health"), args.repeat * 4)
        print(f"lower bound: one GET /api/health round trip {floor * 1000:.1f} ms")
        with open_context(str(server.repo_path)) as ctx:
            for size in sizes:
                seis: list[str | None] = [_sei(n) for n in range(size)]
                result = enrich_work(ctx, seis)
                distinct = len({link["issue_id"] for links in result.links for link in links})
                best, median = _timed(lambda s=seis: enrich_work(ctx, s), args.repeat)
                print(f"  {size:4d} SEIs -> {distinct:3d} distinct issues: best "
                      f"{best * 1000:7.1f} ms  median {median * 1000:7.1f} ms  "
                      f"({best / floor:.0f}x one round trip; state {result.state})")
            os.environ[ENV_VAR] = f"http://127.0.0.1:{free_loopback_port()}"
            best, _ = _timed(lambda: enrich_work(ctx, [_sei(0)]), args.repeat)
            print(f"  dead port:      unavailable in {best * 1000:7.1f} ms")
            url, listener = _hanging()
            os.environ[ENV_VAR] = url
            best, _ = _timed(lambda: enrich_work(ctx, [_sei(0), _sei(1)]), 1)
            listener.close()
            print(f"  hanging server: unavailable in {best * 1000:7.1f} ms "
                  f"(deadline {DEFAULT_DEADLINE_S}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
