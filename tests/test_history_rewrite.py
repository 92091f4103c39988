"""Only history that exists: rewritten-away commits are kept but never counted or named;
lineage and churn order by topology, never by timestamps. Real git commands throughout
(``commit --amend``, ``rebase``, ``reset``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import BASE_TIME, FixtureRepo
from warpline.registry import call_tool
from warpline.store.db import Store

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git CLI")

V1 = "def requote_uri(uri):\n    uri = uri.strip()\n    return uri\n"


def _git(repo: FixtureRepo, *args: str, when: int = BASE_TIME + 10_000) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="Bob", GIT_AUTHOR_EMAIL="bob@example.com",
               GIT_COMMITTER_NAME="Bob", GIT_COMMITTER_EMAIL="bob@example.com",
               GIT_AUTHOR_DATE=f"{when} +0000", GIT_COMMITTER_DATE=f"{when} +0000",
               GIT_CONFIG_NOSYSTEM="1", HOME=str(repo.path))
    done = subprocess.run(["git", "-C", str(repo.path), *args], env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def _edit(repo: FixtureRepo, text: str, message: str, *extra: str) -> None:
    (repo.path / "uri.py").write_text(text)
    _git(repo, "add", "uri.py")
    _git(repo, "commit", "-q", "-m", message, *extra)


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    env = call_tool(tool, arguments)
    assert_valid_envelope(env)
    return env


def _timeline_commits(repo: FixtureRepo, locator: str) -> list[str]:
    env = _call("timeline", repo=str(repo.path), entity=locator, sort_order="asc")
    return [item["commit"] for item in env["data"]["items"]]


def _churn(repo: FixtureRepo, locator: str) -> int:
    env = _call("churn", repo=str(repo.path), entity_refs=[locator])
    return int(env["data"]["items"][0]["churn_count"])


def _stored(repo: FixtureRepo, sha: str) -> tuple[int, ...] | None:
    with Store.open(repo.path) as store:
        row = store.conn.execute("SELECT reachable FROM commits WHERE sha = ?",
                                 (sha,)).fetchone()
    return None if row is None else tuple(row)


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"uri.py": V1}, "add")
    return r


LOC = "python:function:uri.requote_uri"


def test_an_amended_commit_is_kept_but_never_counted_or_named(repo: FixtureRepo) -> None:
    _edit(repo, V1.replace("strip()", "strip(' ')"), "edit")
    old = _git(repo, "rev-parse", "HEAD")
    assert _churn(repo, LOC) == 2
    _edit(repo, V1.replace("strip()", "strip('\\t ')"), "edit, amended", "--amend")
    new = _git(repo, "rev-parse", "HEAD")
    assert new != old
    commits = _timeline_commits(repo, LOC)
    assert old not in commits and commits[-1] == new
    assert _churn(repo, LOC) == 2
    assert _stored(repo, old) == (0,)  # kept, excluded
    changed = _call("changed", repo=str(repo.path))
    assert old not in {item["commit"] for item in changed["data"]["items"]}


def test_a_reset_retires_the_commits_it_drops_and_a_reset_back_restores_them(
    repo: FixtureRepo,
) -> None:
    for n in range(3):
        _edit(repo, V1.replace("strip()", f"strip({n!r})"), f"edit {n}")
    tip = _git(repo, "rev-parse", "HEAD")
    assert _churn(repo, LOC) == 4
    _git(repo, "reset", "-q", "--hard", "HEAD~2")
    assert _churn(repo, LOC) == 2
    assert tip not in _timeline_commits(repo, LOC)
    _git(repo, "reset", "-q", "--hard", tip)
    assert _churn(repo, LOC) == 4
    assert _timeline_commits(repo, LOC)[-1] == tip


def test_a_rebase_counts_the_new_commits_only(repo: FixtureRepo) -> None:
    _git(repo, "checkout", "-q", "-b", "topic")
    _edit(repo, V1.replace("strip()", "strip(' ')"), "topic edit")
    before = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "main")
    (repo.path / "other.py").write_text("X = 1\n")
    _git(repo, "add", "other.py")
    _git(repo, "commit", "-q", "-m", "main moves on")
    _git(repo, "checkout", "-q", "topic")
    assert _churn(repo, LOC) == 2
    _git(repo, "rebase", "-q", "main")
    after = _git(repo, "rev-parse", "HEAD")
    assert after != before
    commits = _timeline_commits(repo, LOC)
    assert before not in commits and after in commits
    assert _churn(repo, LOC) == 2


def test_equal_commit_times_order_a_rename_chain_by_topology(repo: FixtureRepo) -> None:
    # Every commit of the chain at the same instant (normal after a rebase or scripts).
    same = BASE_TIME + 50_000
    body = "    uri = uri.strip()\n    return uri\n"
    for old, new in (("requote_uri", "requote"), ("requote", "quote_uri")):
        text = (repo.path / "uri.py").read_text().replace(f"def {old}(", f"def {new}(")
        (repo.path / "uri.py").write_text(text)
        _git(repo, "add", "uri.py")
        _git(repo, "commit", "-q", "-m", f"rename {old}", when=same)
    assert body in (repo.path / "uri.py").read_text()
    env = _call("churn", repo=str(repo.path),
                entity_refs=["python:function:uri.quote_uri", LOC])
    counts = {i["entity"]["locator"]: i["churn_count"] for i in env["data"]["items"]}
    # The current name carries the whole lineage; the stale name only its own event.
    assert counts["python:function:uri.quote_uri"] == 3
    assert counts[LOC] == 1
    commits = _timeline_commits(repo, "python:function:uri.quote_uri")
    assert commits[-1] == _git(repo, "rev-parse", "HEAD")
    assert commits[-2] == _git(repo, "rev-parse", "HEAD~1")


def test_another_branch_asked_for_by_range_is_answered_but_not_counted_as_head_history(
    repo: FixtureRepo,
) -> None:
    _git(repo, "checkout", "-q", "-b", "topic")
    _edit(repo, V1.replace("strip()", "strip(' ')"), "topic edit")
    topic = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "main")
    env = _call("changed", repo=str(repo.path), rev_range="main..topic")
    assert {i["commit"] for i in env["data"]["items"]} == {topic}
    window = _call("churn", repo=str(repo.path), entity_refs=[LOC],
                   window={"rev_range": "main..topic"})
    assert window["data"]["items"][0]["churn_count"] == 1
    assert _churn(repo, LOC) == 1  # HEAD (main) never had the topic commit
    assert topic not in _timeline_commits(repo, LOC)
