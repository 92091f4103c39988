"""Test maps that travel with git: size, push and fetch time, and a lossless round trip.

```sh
python bench/bench_mapsync.py [--repeat 3] [--workdir DIR]
python bench/bench_mapsync.py --tiny        # smoke run: the fast subset of the suite
```

On a clone of the real requests repository (``_requests_corpus``, its suite run offline):

1. ``pytest --warpline-record`` records a whole-suite map (the CI job on the default branch).
2. ``warpline sync`` pushes it under ``refs/warpline/testmaps`` to a bare remote on the
   local file system: the compressed size, and the push's time.
3. A fresh clone fetches it, ``--repeat`` times: ``warpline sync --no-push`` (fetch, bounded
   decode, import into the store) against lower bounds measured in the same run: the same
   sync before any map was pushed (notes only: what sync costs anyway), a bare ``git
   fetch`` of the same ref (the transfer alone), and ``python -c pass``.
4. The imported map equals the recorded one test by test (so a PR job's selection with the
   fetched map is the selection ``bench_selection.py`` scores with the local map).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _requests_corpus as corpus

REF = "refs/warpline/testmaps"


def _timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
    return time.perf_counter() - started


def _maps(root: Path) -> dict[str, set[str]]:
    from warpline.store.db import Store
    from warpline.store.testmaps import maps, read_map

    with Store.open(root) as store:
        row = maps(store)[0]
        recorded = read_map(store, row)
    return {node: recorded.hits.get(node, set()) for node in recorded.tests}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tiny", action="store_true", help="the suite's fast subset, once")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    missing = corpus.missing_suite_deps()
    if missing:
        print(f"bench_mapsync: the suite needs {', '.join(missing)}; "
              f"pip install -e '.[test]'", file=sys.stderr)
        return 1
    work = args.workdir or Path(tempfile.mkdtemp(prefix="warpline-mapsync-"))
    try:
        return _run(work, "fast" if args.tiny else "all", 1 if args.tiny else args.repeat)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


def _run(work: Path, subset: str, repeat: int) -> int:
    ci = corpus.clone_requests(work / "ci", history=False)
    remote = work / "remote.git"
    corpus.git("clone", "-q", "--bare", str(ci), str(remote), cwd=work)
    corpus.git("remote", "set-url", "origin", str(remote), cwd=ci)
    corpus.git("fetch", "-q", "origin", cwd=ci)
    recorded = corpus.run_suite(ci, ["--warpline-record"], subset=subset)
    if recorded.returncode not in (0, 1):
        print(recorded.output[-3000:], file=sys.stderr)
        return 1
    warpline = [sys.executable, "-m", "warpline.cli"]
    bare_s = []  # the same sync before any map is on the remote: warpline's own floor
    for n in range(repeat):
        plain = work / f"plain{n}"
        corpus.git("clone", "-q", str(remote), str(plain), cwd=work)
        bare_s.append(_timed([*warpline, "sync", "--no-push", "--json"], plain))
        shutil.rmtree(plain, ignore_errors=True)
    push_s = _timed([*warpline, "sync", "--json"], ci)
    blobs = corpus.git("ls-tree", "-l", REF, cwd=remote).split("\n")
    size = sum(int(line.split()[3]) for line in blobs if line.strip())
    sync_s, fetch_s, floor_s = [], [], []
    dev = work / "dev"
    for _ in range(repeat):
        shutil.rmtree(dev, ignore_errors=True)
        corpus.git("clone", "-q", str(remote), str(dev), cwd=work)
        floor_s.append(_timed([sys.executable, "-c", "pass"], dev))
        fetch_s.append(_timed(["git", "fetch", "-q", "origin", f"+{REF}:{REF}-bench"], dev))
        corpus.git("update-ref", "-d", f"{REF}-bench", cwd=dev)
        sync_s.append(_timed([*warpline, "sync", "--no-push", "--json"], dev))
    same = _maps(ci) == _maps(dev)
    tests = len(_maps(dev))
    figures = {"subset": subset, "tests": tests, "map_bytes_compressed": size,
               "push_s": round(push_s, 3), "sync_fetch_s": round(min(sync_s), 3),
               "git_fetch_s": round(min(fetch_s), 3), "python_pass_s": round(min(floor_s), 3),
               "ratio_to_git_fetch": round(min(sync_s) / min(fetch_s), 2),
               "sync_without_maps_s": round(min(bare_s), 3),
               "ratio_to_sync_without_maps": round(min(sync_s) / min(bare_s), 2),
               "sync_fetch_median_s": round(statistics.median(sync_s), 3),
               "round_trip_lossless": same}
    print(f"requests map: {tests} tests, {size / 1024:.1f} KiB compressed; push {push_s:.2f} s")
    print(f"fetch + import: {min(sync_s):.2f} s (median {statistics.median(sync_s):.2f}); "
          f"git fetch alone {min(fetch_s):.2f} s -> {figures['ratio_to_git_fetch']}x; "
          f"python -c pass {min(floor_s):.3f} s; the same sync with no map on the remote "
          f"{min(bare_s):.2f} s -> {figures['ratio_to_sync_without_maps']}x")
    print(f"round trip lossless: {same}")
    print(json.dumps(figures))
    return 0 if same else 1


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    raise SystemExit(main())
