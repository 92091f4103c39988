"""Runs INSIDE a fresh user + mount namespace (``unshare -rm``, see tests/namespace.py): the
mounts it makes (a read-only bind mount, a tiny tmpfs) are real kernel faults, seen only
by this process and its children, and gone when it exits.

Usage: ``python ns_steps.py STEPS.json`` where the file holds a list of steps; one JSON
result per step is printed as a list on stdout. Steps:

* ``["ro", path]``: bind-mount ``path`` read-only onto itself;
* ``["tmpfs", path, size]`` / ``["resize", path, size]``: mount / grow a tmpfs;
* ``["fill", path]``: write a filler file in ``path`` until the filesystem is full;
* ``["unfill", path]``: delete that filler;
* ``["run", argv]``: run a command; result ``{"rc", "stdout", "stderr"}``;
* ``["mcp", [[tool, arguments], ...]]``: one ``warpline-mcp`` server, one ``tools/call``
  per pair; result: the replies;
* ``["sql", db, query]``: rows of a read-only query (``immutable`` when the mount is
  read-only), as lists.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

FILLER = ".filler"


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True, timeout=30)


def _fill(path: str) -> int:
    written = 0
    chunk = b"\0" * 4096
    with open(Path(path) / FILLER, "wb", buffering=0) as out:
        while True:
            try:
                written += out.write(chunk)
            except OSError:
                break
    return written


def _mcp(calls: list[list[Any]]) -> list[Any]:
    from warpline.mcp.client import McpProcess, initialize

    replies: list[Any] = []
    with McpProcess([sys.executable, "-m", "warpline.mcp"], timeout=120) as server:
        initialize(server)
        for tool, arguments in calls:
            replies.append(server.request("tools/call", {"name": tool,
                                                         "arguments": arguments}))
        replies.append(server.request("ping"))
    return replies


def _sql(db: str, query: str) -> list[list[Any]]:
    uri = f"file:{db}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
        rows = conn.execute(query).fetchall()
    except sqlite3.OperationalError:
        conn = sqlite3.connect(uri + "&immutable=1", uri=True)
        rows = conn.execute(query).fetchall()
    conn.close()
    return [list(row) for row in rows]


def step(kind: str, *args: Any) -> Any:
    if kind == "ro":
        _mount("--bind", "-o", "ro", args[0], args[0])
        return None
    if kind == "tmpfs":
        _mount("-t", "tmpfs", "-o", f"size={args[1]}", "tmpfs", args[0])
        return None
    if kind == "resize":
        _mount("-o", f"remount,size={args[1]}", args[0])
        return None
    if kind == "fill":
        return _fill(args[0])
    if kind == "unfill":
        os.unlink(Path(args[0]) / FILLER)
        return None
    if kind == "run":
        done = subprocess.run(args[0], capture_output=True, text=True, timeout=600)
        return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
    if kind == "mcp":
        return _mcp(args[0])
    if kind == "sql":
        return _sql(args[0], args[1])
    raise ValueError(f"unknown step {kind!r}")


def main() -> int:
    steps = json.loads(Path(sys.argv[1]).read_text())
    results = [step(*s) for s in steps]
    json.dump(results, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
