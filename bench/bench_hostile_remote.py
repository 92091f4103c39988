"""A hostile remote at full size (issue 38 items 4 and 5): peak memory and time of
``warpline sync``, ``warpline ci`` and ``warpline reverify`` against each case, in real
processes under ``/usr/bin/time -v`` (its maximum resident set: the largest single process
of the tree, warpline's or git's).

Cases, each served from a real bare remote to a fresh clone of a 70-commit repository:

* ``distinct``: 64 distinct 32 MiB blobs of random bytes under ``refs/warpline/testmaps``
  (2 GiB), named for 64 commits the clone has;
* ``bomb``: 64 entries naming 64 commits, all the same 32 KiB zlib bomb;
* ``bounds``: one map sized just under the decoder's read budget (``wire.read_cost``), and
  one just over it;
* ``note``: a 600 MB note blob under ``refs/notes/warpline`` (plus a well-formed line).

``python bench/bench_hostile_remote.py [--cases distinct,bomb,bounds,note]`` prints JSON;
``--blobs N --blob-mb M --note-mb K`` shrink the cases (the smoke run's).
The tests (``tests/test_hostile_remote.py``) hold the same rules at small sizes."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from warpline.testmap import wire

MAP_REF = "refs/warpline/testmaps"
LIMIT_MB = 256


def _git(cwd: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True,
                          check=True)
    return done.stdout.decode().strip()


def _history(work: Path) -> tuple[Path, list[str]]:
    origin = work / "origin"
    _git(work, "init", "-q", "-b", "main", str(origin))
    (origin / "app").mkdir()
    for n in range(70):
        (origin / "app" / "core.py").write_text(f"def alpha():\n    return {n}\n")
        _git(origin, "add", "-A")
        _git(origin, "-c", "user.name=O", "-c", "user.email=o@x", "commit", "-qm", f"c{n}")
    shas = _git(origin, "rev-list", "HEAD").split()
    return origin, shas


def _tree_commit(repo: Path, entries: dict[str, str]) -> str:
    """A parentless commit whose tree maps names to existing blob ids (``git mktree``)."""
    listing = "".join(f"100644 blob {blob}\t{name}\n" for name, blob in sorted(entries.items()))
    tree = _git(repo, "mktree", data=listing.encode())
    return _git(repo, "-c", "user.name=x", "-c", "user.email=x@x", "commit-tree", tree,
                "-m", "maps")


def _blob(repo: Path, data: bytes) -> str:
    return _git(repo, "hash-object", "-w", "--stdin", data=data)


def _measure(cwd: Path, *args: str) -> dict[str, Any]:
    started = time.monotonic()
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "warpline.cli", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "NO_COLOR": "1",
                               "WARPLINE_BACKGROUND_BACKFILL": "0",
                               "WARPLINE_EDGE_SOURCES": "builtin"})
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    rss = int(found.group(1)) // 1024 if found else -1
    out: dict[str, Any] = {"command": " ".join(args[:2]), "exit": done.returncode,
                           "max_rss_mb": rss, "seconds": round(time.monotonic() - started, 1)}
    if done.returncode == 0 and "--json" in args:
        report = json.loads(done.stdout)
        maps = (report.get("maps") or (report.get("notes") or {}).get("maps") or {})
        out["imported"], out["skipped"] = maps.get("imported"), len(maps.get("skipped") or [])
        warnings = report.get("warnings") or []
        out["named"] = [w[:160] for w in warnings if "refs/notes/warpline" in w]
    return out


def _bounded_map(commit: str, budget: int) -> bytes:
    """A valid map whose inflated document costs just under ``budget`` (read_cost)."""
    entities = [[f"python:function:pkg.mod{n // 50}.f{n}", f"pkg/mod{n // 50}.py", 0]
                for n in range(40_000)]
    per = 10
    while True:
        tests = [[f"tests/test_x.py::test_{n}", "tests/test_x.py", "passed"]
                 for n in range(20_000)]
        hits = [[(n * 7 + k * 13) % 40_000 for k in range(per)] for n in range(20_000)]
        doc = {"schema": wire.SCHEMA, "commit": commit, "source": "pytest",
               "tracer_version": "7", "rootdir": "", "collected": len(tests),
               "recorded_at": 1_700_000_000, "partial": [], "tests": tests,
               "entities": entities, "hits": [sorted(set(h)) for h in hits]}
        raw = json.dumps(doc, separators=(",", ":")).encode()
        if wire.read_cost(raw) > budget or len(raw) > wire.MAX_INFLATED:
            per = int(per * 0.97)
            continue
        if wire.read_cost(raw) > budget * 0.97:
            return zlib.compress(raw, 6)
        per = int(per * 1.2) + 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="distinct,bomb,bounds,note")
    parser.add_argument("--blobs", type=int, default=64)
    parser.add_argument("--blob-mb", type=int, default=32)
    parser.add_argument("--note-mb", type=int, default=600)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    origin, shas = _history(work)
    report: dict[str, Any] = {"limit_mb": LIMIT_MB}
    for case in args.cases.split(","):
        remote = work / f"{case}.git"
        _git(work, "clone", "-q", "--bare", str(origin), str(remote))
        if case == "distinct":
            entries = {f"{sha}.zlib": _blob(remote, os.urandom(args.blob_mb << 20))
                       for sha in shas[:args.blobs]}
            _git(remote, "update-ref", MAP_REF, _tree_commit(remote, entries))
        elif case == "bomb":
            bomb = _blob(remote, zlib.compress(b"[" * (wire.MAX_INFLATED + 10), 9))
            _git(remote, "update-ref", MAP_REF,
                 _tree_commit(remote, {f"{sha}.zlib": bomb for sha in shas[:args.blobs]}))
        elif case == "bounds":
            under = _blob(remote, _bounded_map(shas[0], wire.READ_BUDGET))
            over = _blob(remote, _bounded_map(shas[1], int(wire.READ_BUDGET * 1.3)))
            _git(remote, "update-ref", MAP_REF,
                 _tree_commit(remote, {f"{shas[0]}.zlib": under, f"{shas[1]}.zlib": over}))
        elif case == "note":
            line = json.dumps({"v": 1, "type": "verification", "commit": shas[0],
                               "kind": "test_pass", "source": "warpline", "actor": "x",
                               "verified_at": 1_700_000_000}) + "\n"
            big = work / "note.txt"
            with big.open("wb") as handle:
                handle.write(line.encode())
                chunk = b"# padding " * 100_000 + b"\n"
                for _ in range(args.note_mb):
                    handle.write(chunk)
            blob = _git(remote, "hash-object", "-w", str(big))
            big.unlink()
            _git(remote, "-c", "user.name=x", "-c", "user.email=x@x", "notes",
                 "--ref=refs/notes/warpline", "add", "-f", "-C", blob, shas[0])
        clone = work / f"{case}-clone"
        _git(work, "clone", "-q", str(remote), str(clone))
        runs = [_measure(clone, "sync", "--no-push", "--json"),
                _measure(clone, "ci", "--base", "HEAD~1", "--markdown",
                         str(work / f"{case}.md"), "--json"),
                _measure(clone, "reverify", "HEAD~1..HEAD", "--json")]
        report[case] = runs
        subprocess.run(["rm", "-rf", str(remote), str(clone)], check=False)
    ok = all(r["exit"] == 0 and r["max_rss_mb"] <= LIMIT_MB
             for case, runs in report.items() if case != "limit_mb" for r in runs)
    report["all_within"] = ok
    subprocess.run(["rm", "-rf", str(work)], check=False)
    print(json.dumps(report, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
