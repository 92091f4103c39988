"""Peak RSS and time after the issue-13 caps: one 50 MB Python file, a 1 M-ref request.

```sh
python bench/bench_caps.py [--mb 50] [--refs 1000000] [--out bench/out/caps.json]
```

Every figure is one child Python process: its wall time and its own peak RSS (``VmHWM``,
written at exit; ``ru_maxrss`` would count the forking parent's pages), beside a lower
bound measured the same way in the same run:

* **50 MB file**: a repository with two commits (the file added, then one line of it
  edited). ``warpline backfill`` and ``warpline capture-snapshot`` against a bare Python
  process that opens the repository and loads both blobs (what any reader must pay).
* **1 M-ref request**: one ``warpline-mcp`` answering ``tools/call`` churn with
  ``entity_refs: [1] * N`` (the issue's 3 MB line), against the same server answering
  ``ping`` after ``initialize`` (start-up plus one round trip).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pygit2

# Runs a module (or code) and, at exit, writes its own peak RSS (``VmHWM``: this process's
# high-water mark; ``ru_maxrss`` would include the forking parent's) to the file argv[1].
_WRAP = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            open(out, 'w').write(line.split()[1])
atexit.register(hwm)
what = sys.argv.pop(1)
if what == '-c':
    code = sys.argv.pop(1)
    exec(compile(code, '<bench>', 'exec'), {'__name__': '__main__'})
else:
    runpy.run_module(what, run_name='__main__', alter_sys=True)
"""


def _measure(argv: list[str], *, stdin: bytes | None = None,
             env: dict[str, str] | None = None) -> dict[str, Any]:
    """Wall seconds and peak RSS (MiB) of one Python child (``argv``: ``[-m] module ...``
    or ``-c code ...``), and its exit status."""
    hwm = tempfile.NamedTemporaryFile(delete=False, suffix=".hwm")
    hwm.close()
    what = argv[1:] if argv[0] == "-m" else argv
    argv = [sys.executable, "-c", _WRAP, hwm.name, *what]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else None,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)  # the server reads as we write; its replies are small
        proc.stdin.close()
    out = proc.stdout.read()
    code = proc.wait()
    seconds = time.perf_counter() - started
    text = Path(hwm.name).read_text().strip()
    Path(hwm.name).unlink()
    return {"seconds": round(seconds, 3),
            "peak_rss_mib": round(int(text) / 1024, 1) if text else None,
            "exit": code, "stdout_bytes": len(out)}


def _huge_repo(where: Path, megabytes: int) -> Path:
    repo = pygit2.init_repository(str(where), initial_head="main")
    sig = pygit2.Signature("Bench", "bench@example.com", 1_750_000_000, 0)
    line = "def f{0}(x):\n    return x + {0}\n\n\n"
    parts, size, i = [], 0, 0
    while size < megabytes * 1024 * 1024:
        text = line.format(i)
        parts.append(text)
        size += len(text)
        i += 1
    first = "".join(parts).encode()
    second = first.replace(b"return x + 7\n", b"return x - 7\n", 1)
    parent: list[pygit2.Oid] = []
    for message, content in (("add a generated module", first), ("edit one line", second)):
        builder = repo.TreeBuilder()
        builder.insert("generated.py", repo.create_blob(content), pygit2.GIT_FILEMODE_BLOB)
        builder.insert("small.py", repo.create_blob(f"def g():\n    return {len(parent)}\n"
                                                    .encode()), pygit2.GIT_FILEMODE_BLOB)
        oid = repo.create_commit("HEAD", sig, sig, message, builder.write(), parent)
        parent = [oid]
    return where


_LOAD_BLOBS = ("import pygit2, sys; r = pygit2.Repository(sys.argv[1]); "
               "total = sum(len(r[e.id].data) for c in r.walk(r.head.target) for e in c.tree); "
               "print(total)")


def bench_huge_file(megabytes: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = _huge_repo(Path(tmp) / "repo", megabytes)
        env = {**os.environ, "WARPLINE_INGEST_WORKERS": "0"}
        bound = _measure(["-c", _LOAD_BLOBS, str(root)])
        backfill = _measure(["-m", "warpline.cli", "backfill", "--repo",
                             str(root), "--json"], env=env)
        capture = _measure(["-m", "warpline.cli", "capture-snapshot",
                            "--repo", str(root), "--json"],
                           env={**env, "WARPLINE_EDGE_SOURCES": "builtin"})
    return {"megabytes": megabytes, "lower_bound_load_blobs": bound, "backfill": backfill,
            "capture_snapshot": capture,
            "backfill_time_ratio": round(backfill["seconds"] / bound["seconds"], 2),
            "backfill_rss_ratio": round(backfill["peak_rss_mib"] / bound["peak_rss_mib"], 2),
            "capture_time_ratio": round(capture["seconds"] / bound["seconds"], 2),
            "capture_rss_ratio": round(capture["peak_rss_mib"] / bound["peak_rss_mib"], 2)}


def _rpc(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def bench_many_refs(refs: int) -> dict[str, Any]:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18"}}
    server = ["-m", "warpline.mcp"]
    with tempfile.TemporaryDirectory() as tmp:
        root = _huge_repo(Path(tmp) / "repo", 1)
        bound = _measure(server, stdin=_rpc(init, {"jsonrpc": "2.0", "id": 1,
                                                   "method": "ping"}))
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "churn", "arguments": {"repo": str(root),
                                                          "entity_refs": [1] * refs}}}
        line = _rpc(init, call)
        big = _measure(server, stdin=line)
    return {"refs": refs, "request_bytes": len(line), "lower_bound_ping": bound,
            "many_refs_call": big,
            "time_ratio": round(big["seconds"] / bound["seconds"], 2),
            "rss_ratio": round(big["peak_rss_mib"] / bound["peak_rss_mib"], 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--refs", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "caps.json")
    args = parser.parse_args()
    result = {"huge_file": bench_huge_file(args.mb), "many_refs": bench_many_refs(args.refs)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
