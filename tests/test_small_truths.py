"""Small truths from the CI trial: backfill counts what the store holds, the ingest report
names unparsable files, CLI `next:` lines are commands a shell runs, and the markdown comment
folds long sections and states each fact once."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.gitfixture import FixtureRepo
from warpline.store.db import store_path


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, "NO_COLOR": "1", "WARPLINE_INGEST_WORKERS": "0"})


def _stored(root: Path) -> tuple[int, int]:
    with sqlite3.connect(store_path(root)) as conn:
        events = conn.execute("SELECT count(*) FROM change_events").fetchone()[0]
        declared = conn.execute("SELECT sum(event_count) FROM commits").fetchone()[0]
    return int(events), int(declared)


def test_backfill_reports_exactly_the_events_the_store_holds(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    # `app/packages.py` and `app/packages/__init__.py` are one module locator: a commit
    # touching both has two changes for one entity, which the store holds as one event
    # (seen in requests' history, where the report said one more than the store).
    repo.commit({"app/__init__.py": "", "app/packages.py": "X = 1\n",
                 "app/packages/__init__.py": "Y = 1\n"}, message="one")
    repo.commit({"app/packages.py": "X = 2\n", "app/packages/__init__.py": None},
                message="two")
    done = _cli(repo.path, "backfill", "--json")
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)["events_written"]
    assert (written, written) == _stored(repo.path)


def test_the_ingest_report_names_unparsable_files(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"ok.py": "def g():\n    return 1\n", "bad.py": "}}}} ))) ]]]\n"},
                message="one")
    done = _cli(repo.path, "backfill", "--json")
    assert json.loads(done.stdout)["unparsed_paths"] == ["bad.py"]
    (repo.path / ".weft").rename(tmp_path / "old-weft")
    text = _cli(repo.path, "backfill")
    assert text.returncode == 0, text.stderr
    assert "bad.py" in text.stdout


def test_next_lines_are_commands_a_shell_can_run(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/core.py": "def a():\n    return 1\n"}, message="one")
    repo.commit({"app/core.py": "def a():\n    return 2\n"}, message="two")
    done = _cli(repo.path, "changed", "HEAD~1..HEAD")
    nexts = [line[len("next: "):].split("  (")[0] for line in done.stdout.splitlines()
             if line.startswith("next: ")]
    assert any(n.startswith("warpline reverify") for n in nexts), done.stdout
    for command in nexts:
        words = shlex.split(command)
        assert words[0] == "warpline"
        ran = _cli(tmp_path, *words[1:])
        assert ran.returncode == 0, (command, ran.stderr)


def test_the_markdown_folds_long_sections_and_states_each_fact_once(tmp_path: Path) -> None:
    origin = FixtureRepo(tmp_path / "origin")
    body = "\n\n".join(f"def f{n}():\n    return {n}\n" for n in range(15))
    origin.commit({"app/core.py": body}, message="one")
    origin.commit({"app/core.py": body.replace("return", "return 1 +")}, message="two")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{origin.path}",
                    str(shallow)], check=True, capture_output=True, timeout=60)
    done = _cli(shallow, "reverify", "HEAD~1..HEAD", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "<details>" in text and "<summary><b>Changed</b> (15)</summary>" in text
    assert text.count("shallow clone") == 1
    assert "0 commits behind" not in text
