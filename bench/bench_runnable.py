"""Every test command warpline prints runs (issue 34, item 2), on real ranges of the corpora.

For each corpus (requests, pip) the newest ``--ranges`` commits that change Python code are
checked out one by one (detached) and their one-commit range ``C~1..C`` asked of
``reverify``; then the same with a test the range selects deleted from the work tree
(``--worktree``). The selection's command and the plugin are run with pytest's ``--collect-only``
(collection is where "not found", usage errors and "no tests collected" show: exit 4, 2, 5):

* ``data.selection.runners[pytest].command``: what ``next_actions.commands[0]`` (checked),
  the table's ``next:``, the markdown's block, ``--format pytest``, ``warpline ci`` and its
  ``--selection`` file print (``tests/test_selection_outputs.py`` holds them equal);
* ``pytest --warpline-select=C~1..C`` (the plugin, on the whole collection).

Prints the exit codes per form, and the selections that were narrowed (``dropped_tests``).
``--code DIR`` runs another checkout's warpline (``/work/main``: today's code, for the
before figure). The corpora's test dependencies: requests' from its requirements-dev.txt;
pip's ``test`` group (``freezegun installer pytest-rerunfailures pytest-subket scripttest
virtualenv tomli-w proxy.py flit-core``) in the interpreter given as ``--pip-python``.

    python bench/bench_runnable.py --workdir /tmp/runnable --ranges 15
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from _requests_corpus import corpora_dir

BENCH = Path(__file__).resolve().parent
PYTEST_WORD = re.compile(r"(^|&& |\(cd [^&]+ && )pytest(?= |$|\))")
COLLECT = "-m pytest --collect-only -q -p no:cacheprovider "


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 900
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


class Corpus:
    def __init__(self, name: str, workdir: Path, python: str, code: str | None) -> None:
        self.name, self.python = name, python
        self.repo = workdir / name
        if not self.repo.exists():
            subprocess.run(["git", "clone", "-q", str(corpora_dir() / f"{name}.bundle"),
                            str(self.repo)],
                           check=True)
        self.env = dict(os.environ, PYTHONPATH="src", PYTHONDONTWRITEBYTECODE="1",
                        WARPLINE_NO_PROGRESS="1")
        self.tool_env = {k: v for k, v in self.env.items() if k != "PYTHONPATH"}
        if code:
            self.tool_env["PYTHONPATH"] = code
        self.plugin_env = dict(self.env, PYTHONPATH=f"src{os.pathsep}{code}") if code \
            else self.env

    def warpline(self, *args: str) -> subprocess.CompletedProcess[str]:
        return _run([sys.executable, "-m", "warpline.cli", *args], self.repo, self.tool_env)

    def collect(self, command: str) -> int:
        """The exit status of ``command`` with every pytest in it only collecting."""
        shell = PYTEST_WORD.sub(
            lambda m: f"{m.group(1)}{shlex.quote(self.python)} {COLLECT.rstrip()}", command)
        return _run(["sh", "-c", shell], self.repo, self.env).returncode

    def plugin(self, rev_range: str) -> int:
        return _run([self.python, *COLLECT.split(), f"--warpline-select={rev_range}"],
                    self.repo, self.plugin_env).returncode


def _commits(repo: Path, count: int, skip: int = 0) -> list[str]:
    out = _git(repo, "log", "--no-merges", "--format=%H", "-n", str((count + skip) * 3),
               "HEAD", "--", "*.py")
    return out.split()[skip:skip + count]


def _forms(corpus: Corpus, rev_range: str, worktree: bool) -> dict[str, Any]:
    """One state's selection and the exit status of its forms: the runner entry's command
    (which ``next_actions.commands[0]``, the table's ``next:``, the markdown, ``--format
    pytest`` and ``warpline ci --selection`` print, as ``tests/test_selection_outputs.py``
    holds; checked here against ``commands[0]``) and the plugin's own selection."""
    extra = ["--worktree"] if worktree else []
    answer = corpus.warpline("reverify", rev_range, *extra, "--json", "--limit", "1")
    try:
        envelope = json.loads(answer.stdout)
    except ValueError:  # no answer at all: a failure of warpline's, counted and shown
        return {"tests": [], "dropped": [], "whole_suite": False, "nothing_to_run": False,
                "next_is_runner": False, "exit": {"reverify": answer.returncode},
                "stderr": answer.stderr[-2000:]}
    selection = envelope["data"]["selection"]
    runs = [r for r in selection.get("runners") or [] if r.get("runner") == "pytest"]
    first = (envelope["next_actions"].get("commands") or [{}])[0].get("command")
    out: dict[str, Any] = {
        "tests": selection.get("tests") or [],
        "dropped": selection.get("dropped_tests") or [],
        "whole_suite": any(r.get("whole_suite") for r in runs),
        "nothing_to_run": bool(selection.get("nothing_to_run") or selection.get("cosmetic_only")),
        "next_is_runner": not runs or first == runs[0]["command"],
        "exit": {},
    }
    if runs:
        out["exit"]["command"] = corpus.collect(runs[0]["command"])
    out["exit"]["plugin"] = corpus.plugin(rev_range)
    return out


def _delete_a_selected_test(corpus: Corpus, selected: list[str]) -> str | None:
    """Deletes (from the work tree) the file of a test the range selects; its path."""
    for test_id in selected:
        path = test_id.split("::", 1)[0]
        if path.endswith(".py") and (corpus.repo / path).is_file():
            (corpus.repo / path).unlink()
            return path
    return None


def bench(corpus: Corpus, count: int, capture: bool, skip: int = 0) -> list[dict[str, Any]]:
    rows = []
    for sha in _commits(corpus.repo, count, skip):
        _git(corpus.repo, "checkout", "-q", "--detach", sha)
        if capture:
            corpus.warpline("capture-snapshot")
        rev_range = f"{sha[:12]}~1..{sha[:12]}"
        committed = _forms(corpus, rev_range, False)
        row: dict[str, Any] = {"corpus": corpus.name, "range": rev_range,
                               "committed": committed}
        deleted = _delete_a_selected_test(corpus, committed["tests"])
        if deleted is not None:
            row["deleted"] = deleted
            try:
                row["worktree"] = _forms(corpus, rev_range, True)
            finally:
                _git(corpus.repo, "checkout", "-q", "--", deleted)
        for state in ("committed", "worktree"):
            if state in row:
                row[state]["tests"] = len(row[state]["tests"])
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    counts: dict[str, Counter[int]] = {}
    for row in rows:
        for state in ("committed", "worktree"):
            for form, code in (row.get(state) or {}).get("exit", {}).items():
                counts.setdefault(f"{state}/{form}", Counter())[code] += 1
    bad = sum(n for c in counts.values() for code, n in c.items() if code in (2, 4, 5))
    lines = [f"{key}: " + ", ".join(f"exit {code} x{n}" for code, n in sorted(c.items()))
             for key, c in sorted(counts.items())]
    dropped = sum(1 for r in rows for s in ("committed", "worktree") if (r.get(s) or {}).get(
        "dropped"))
    lines.append(f"ranges: {len(rows)}; with a test deleted: "
                 f"{sum(1 for r in rows if 'worktree' in r)}; selections narrowed: {dropped}; "
                 f"runs exiting 2, 4 or 5: {bad}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--ranges", type=int, default=15)
    parser.add_argument("--skip", type=int, default=0,
                        help="leave out the newest N such commits (resume a run)")
    parser.add_argument("--corpus", action="append", choices=("requests", "pip"))
    parser.add_argument("--pip-python", default=sys.executable)
    parser.add_argument("--code", help="another checkout's warpline (PYTHONPATH)")
    parser.add_argument("--no-capture", action="store_true",
                        help="use the store's snapshot as it is (no capture per commit)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for name in args.corpus or ["requests", "pip"]:
        if not (corpora_dir() / f"{name}.bundle").is_file():
            print(f"{name}: no {name}.bundle in {corpora_dir()}: skipped")
            continue
        python = args.pip_python if name == "pip" else sys.executable
        corpus = Corpus(name, args.workdir, python, args.code)
        head = _git(corpus.repo, "rev-parse", "HEAD").strip()
        corpus.warpline("backfill")
        try:
            rows += bench(corpus, args.ranges, not args.no_capture, args.skip)
        finally:
            _git(corpus.repo, "checkout", "-q", "--detach", head)
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
