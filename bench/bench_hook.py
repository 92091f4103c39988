"""What the warpline hooks cost a ``git commit``: with the hooks vs without, same machine.

    python bench/bench_hook.py [--commits 30] [--no-settle] [--files 200]

Two identical plain-git repositories; ``warpline install`` runs in one of them. Then the
same edit is committed in each, alternating, ``--commits`` times; only ``git commit`` is
timed (``git add`` is not). By default the bench waits for the hook's detached background
ingest to finish before the next commit (``--no-settle`` does not: back-to-back commits
then also compete with the background ingests for the CPU). It prints the medians, the
p90s and the difference in milliseconds, plus how long the background ingests took (from
``.weft/warpline/ingest.log``). Nothing is asserted: the target is "a few tens of
milliseconds more", read off the printout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from tests.hookrepo import hook_processes, reap_hook_processes  # noqa: E402


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


def _git(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _make_repo(path: Path, env: dict[str, str], files: int) -> None:
    path.mkdir(parents=True)
    _git(path, env, "init", "-q", "-b", "main")
    for n in range(files):
        module = path / "pkg" / f"m{n}.py"
        module.parent.mkdir(exist_ok=True)
        module.write_text("".join(f"def f{k}():\n    return {k}\n\n\n" for k in range(20)))
    _git(path, env, "add", ".")
    _git(path, env, "commit", "-q", "-m", "initial")


def _timed_commit(repo: Path, env: dict[str, str], n: int) -> float:
    target = repo / "pkg" / "m0.py"
    target.write_text(target.read_text().replace(f"return {n}\n", f"return {n + 1000}\n", 1)
                      + f"\n\ndef added_{n}():\n    return {n}\n")
    _git(repo, env, "add", "pkg/m0.py")
    started = time.perf_counter()
    _git(repo, env, "commit", "-q", "-m", f"edit {n}")
    return (time.perf_counter() - started) * 1000


def _settle(under: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while hook_processes(under) and time.monotonic() < deadline:
        time.sleep(0.01)


def _p90(values: list[float]) -> float:
    return sorted(values)[max(int(len(values) * 0.9) - 1, 0)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=30, help="commits per repository")
    parser.add_argument("--files", type=int, default=200, help="Python files in each repo")
    parser.add_argument("--no-settle", action="store_true",
                        help="do not wait for the background ingest between commits")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="warpline-bench-hook-") as tmp:
        base = Path(tmp)
        env = _env(base / "home")
        (base / "home").mkdir()
        plain, hooked = base / "plain", base / "hooked"
        _make_repo(plain, env, args.files)
        _make_repo(hooked, env, args.files)
        subprocess.run([sys.executable, "-m", "warpline.cli", "install", "--repo", str(hooked)],
                       env=env, check=True, capture_output=True)
        times: dict[str, list[float]] = {"without hooks": [], "with hooks": []}
        try:
            _timed_commit(plain, env, 0)  # warm-up: page cache, git's own start-up
            _timed_commit(hooked, env, 0)
            _settle(base)
            for n in range(1, args.commits + 1):
                times["without hooks"].append(_timed_commit(plain, env, n))
                times["with hooks"].append(_timed_commit(hooked, env, n))
                if not args.no_settle:
                    _settle(base)
        finally:
            reap_hook_processes(base)
        log = hooked / ".weft" / "warpline" / "ingest.log"
        ingests = [json.loads(line) for line in log.read_text().splitlines()]
        background = [r["seconds"] * 1000 for r in ingests if r.get("hook") == "post-commit"]

    print(f"git commit, {args.commits} commits each, {args.files} files "
          f"({'back-to-back' if args.no_settle else 'background ingest settled between'}):")
    for label, values in times.items():
        print(f"  {label:<14} median {statistics.median(values):7.1f} ms   "
              f"p90 {_p90(values):7.1f} ms")
    diff = statistics.median(times["with hooks"]) - statistics.median(times["without hooks"])
    print(f"  difference     median {diff:+7.1f} ms")
    if background:
        print(f"  background ingest (detached, not waited for by git): median "
              f"{statistics.median(background):.0f} ms over {len(background)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
