"""What a person reads at 100 columns (issue 34): names cut from the left so the
distinctive tail stays, the nature of each change, no column that says nothing, the actor
by name; churn of an unknown name says unknown; a path counts its file; the timeline in
the order of its WHEN column; co-change support beside confidence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import BASE_TIME, FixtureRepo
from warpline.cli.formats import co_change_lines
from warpline.cli.render import table
from warpline.cli.views import changed_view, churn_view

LONG = "python:function:requests.packages.urllib3.contrib.pyopenssl.WrappedSocket.sendall"


def _item(locator: str, nature: str | None = "behavioural") -> dict[str, Any]:
    return {"change_kind": "modified", "also_modified": None, "nature": nature,
            "entity": {"locator": locator, "kind": "function"}, "commit": "ab" * 20,
            "changed_at": "2012-07-01T10:00:00Z",
            "actor": "Kenneth Reitz <me@kennethreitz.org>"}


def test_a_100_column_table_keeps_the_tail_of_names_the_nature_and_the_actors_name() -> None:
    env = {"data": {"items": [_item(LONG), _item(LONG.replace("sendall", "recv"), "cosmetic")],
                    "total": 2}}
    lines = "\n".join(changed_view(env, 100)).splitlines()
    assert all(len(line) <= 100 for line in lines)
    body = "\n".join(lines)
    assert "WrappedSocket.sendall" in body and "WrappedSocket.recv" in body
    assert "cosmetic" in body and "behavioural" in body
    assert "Kenneth Reitz" in body and "kennethreitz.org" not in body


def test_a_column_nothing_fills_is_left_out() -> None:
    text = table(("A", "PRIORITY", "B"), [("x", None, "y"), ("z", None, "w")], width=100)
    assert "PRIORITY" not in text and text.splitlines()[0].split() == ["A", "B"]


def test_churn_of_an_unknown_name_says_unknown_not_zero() -> None:
    env = {"data": {"items": [{"churn_count": 0, "observed": False, "ref": {
        "kind": "qualname", "value": "app.nope"}, "entity": {"locator": None, "sei": None},
        "last_changed_at": None, "last_actor": None}]}}
    text = "\n".join(churn_view(env, 100))
    assert "unknown" in text
    assert not any(line.split()[:1] == ["0"] for line in text.splitlines())


def test_co_change_says_how_many_commits_a_confidence_is_read_from() -> None:
    partner = {"locator": "python:function:app.b", "support": 2, "confidence": 1.0,
               "last_commit": "cd" * 20, "changed_with": ["python:function:app.a"]}
    [_, line] = co_change_lines({"co_change": [partner]})
    assert "2 of the 2 commits" in line and "weak" in line


def _cli(repo: FixtureRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args, "--repo",
                           str(repo.path)], capture_output=True, text=True, timeout=300)


@pytest.fixture
def skewed(tmp_path: Path) -> FixtureRepo:
    """A history whose committer times run backwards once (a rebase's clock): commit two
    is dated a day before commit one."""
    repo = FixtureRepo(tmp_path / "repo")
    src = "def f():\n    return {}\n\n\ndef g():\n    return 0\n"
    repo.commit({"app/mod.py": src.format(1)}, "one", when=BASE_TIME + 86_400)
    repo.commit({"app/mod.py": src.format(2)}, "two", when=BASE_TIME)
    repo.commit({"app/mod.py": src.format(3)}, "three", when=BASE_TIME + 2 * 86_400)
    return repo


def test_the_timeline_is_printed_in_the_order_of_its_when_column(skewed: FixtureRepo) -> None:
    done = _cli(skewed, "timeline", "app.mod.f", "--json")
    assert done.returncode == 0, done.stderr
    whens = [item["changed_at"] for item in json.loads(done.stdout)["data"]["items"]]
    assert whens == sorted(whens) and len(whens) == 3


def test_churn_of_a_path_counts_the_file_and_says_so(skewed: FixtureRepo) -> None:
    done = _cli(skewed, "churn", "app/mod.py", "--json")
    env = json.loads(done.stdout)
    [item] = env["data"]["items"]
    assert item["entity"]["locator"] == "core:file:app/mod.py" and item["churn_count"] == 3
    assert any("counts the file" in w for w in env["warnings"])
