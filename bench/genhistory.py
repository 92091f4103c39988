"""Write a deterministic synthetic git history that looks like a real Python project's.

    python bench/genhistory.py OUT_DIR --commits N [--seed S] [--modules M] [--stats]

Everything is built in-process with pygit2 (blobs, ``TreeBuilder`` trees, commits); the
same seed and arguments give byte-identical history, so the same commit shas. The shape:
a ``src/<pkg>/`` package with subpackages, ``tests/``, ``docs/*.md``, README, pyproject,
a changelog, a shell script and a PNG; commit sizes skewed (most touch 1-3 files inside one
or two functions, some 10-40, rarely a 60-200 file sweep); modules from a few lines to
2,000-4,000-line ones with hundreds of definitions; feature branches merged back with
two-parent merges (some resolving a "conflict"); renames, deletions, eight authors, and
monotonically increasing commit times. A few commits leave a stray conflict marker in a
module (so it does not parse) and the next commit on main removes it; ``--stats`` reports
those blobs. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the _gen_* helpers, when imported

import pygit2
from _gen_history import History
from _gen_lines import Stats

__all__ = ["Stats", "generate", "generate_with_stats", "summary"]


def default_modules(commits: int) -> int:
    return max(20, min(150, commits // 40))


def generate_with_stats(out_dir: str | Path, commits: int, seed: int = 0,
                        modules: int | None = None, *, pack: bool = True) -> tuple[str, Stats]:
    """Write the history into a new repository at ``out_dir``; return (head sha, stats)."""
    if commits < 1:
        raise ValueError(f"commits must be at least 1, got {commits}")
    modules = default_modules(commits) if modules is None else modules
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty; pick a new directory")
    repo = pygit2.init_repository(str(out), bare=False, initial_head="main")
    history = History(repo, seed, commits, modules)
    history.initial()
    for index in range(1, commits):
        history.step(index)
    head = history.lines.main.tip
    assert head is not None and not history.lines.branches
    repo.references.create("refs/heads/main", head, force=True)
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)  # type: ignore[no-untyped-call]
    if pack:
        _pack(out)
    return str(head), history.stats


def generate(out_dir: str | Path, commits: int, seed: int = 0, modules: int | None = None) -> str:
    """Write the history; return the head commit's sha."""
    return generate_with_stats(out_dir, commits, seed, modules)[0]


def _pack(out: Path) -> None:
    """Pack the objects as a fresh clone has them (one pack, no commit-graph)."""
    git = shutil.which("git")
    if git is None:
        pygit2.Repository(str(out)).pack()  # packs, but leaves the loose copies behind
        return
    subprocess.run([git, "-C", str(out), "repack", "-a", "-d", "-q"], check=True)


def summary(stats: Stats, repo_path: str | Path) -> dict[str, Any]:
    """Shape statistics of a generated history (head figures read back from the repo)."""
    repo = pygit2.Repository(str(repo_path))
    head_files: list[tuple[str, int]] = []
    stack: list[tuple[str, pygit2.Tree]] = [("", repo.head.peel(pygit2.Commit).tree)]
    while stack:
        prefix, tree = stack.pop()
        for entry in tree:
            path = f"{prefix}{entry.name}"
            if isinstance(entry, pygit2.Tree):
                stack.append((path + "/", entry))
            elif isinstance(entry, pygit2.Blob):
                head_files.append((path, entry.data.count(b"\n")))
    py = sorted(n for p, n in head_files if p.endswith(".py"))
    sizes = sorted(stats.sizes)
    out = asdict(stats)
    del out["sizes"]
    out["broken_blobs"] = sorted(stats.broken_blobs)
    out.update({
        "files_at_head": len(head_files),
        "python_files_at_head": len(py),
        "python_lines_at_head": sum(py),
        "modules_over_2000_lines_at_head": sum(1 for n in py if n >= 2000),
        "longest_module_at_head": max(py, default=0),
        "commit_size_mean": round(statistics.fmean(sizes), 2) if sizes else 0,
        "commit_size_median": statistics.median(sizes) if sizes else 0,
        "commit_size_p90": sizes[int(0.9 * (len(sizes) - 1))] if sizes else 0,
        "commit_size_max": max(sizes, default=0),
        "commits_touching_10_plus_files": sum(1 for s in sizes if s >= 10),
    })
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--commits", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modules", type=int, default=None,
                        help="roughly how many src/ modules the project grows to "
                             "(default: commits/40, between 20 and 150)")
    parser.add_argument("--no-pack", action="store_true", help="leave objects loose")
    parser.add_argument("--stats", action="store_true", help="print shape statistics as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        head, stats = generate_with_stats(args.out_dir, args.commits, args.seed, args.modules,
                                          pack=not args.no_pack)
    except (ValueError, FileExistsError) as exc:
        print(f"genhistory: {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    print(f"{head}  {stats.commits} commits in {args.out_dir} ({elapsed:.1f}s)", file=sys.stderr)
    if args.stats:
        print(json.dumps(summary(stats, args.out_dir), indent=2))
    else:
        print(head)
    return 0


if __name__ == "__main__":
    sys.exit(main())
