"""Every byte string git can hold is a path warpline can store (issue 29, item 5): a file
name that is not UTF-8 is kept (escaped ``\\xff``, ``warpline.git.paths``), the other
files of its commit are attributed, and every answer stays valid UTF-8 JSON.

A real repository built with git's own commands, the names made by the filesystem."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from warpline.git.paths import raw, shown

BAD = os.fsdecode(b"bad\xff.py")  # surrogateescape'd, as Python and pygit2 hold it
DATA = os.fsdecode(b"dat\xfe.txt")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.name", "T")
    _git(root, "config", "user.email", "t@example.com")
    (root / "ok.py").write_text("def a():\n    return 1\n")
    _git(root, "add", "ok.py")
    _git(root, "commit", "-qm", "one")
    try:
        (root / BAD).write_text("def b():\n    return 2\n")
        (root / DATA).write_text("x\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this filesystem refuses names that are not UTF-8")
    (root / "ok.py").write_text("def a():\n    return 3\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "two")
    return root


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    from warpline.registry import call_tool

    env = call_tool(tool, arguments)
    assert_valid_envelope(env)
    return env


def _items(env: dict[str, Any]) -> set[tuple[str, str]]:
    return {(i["entity"]["locator"], i["change_kind"]) for i in env["data"]["items"]}


def test_shown_escapes_only_undecodable_bytes_and_raw_gives_them_back() -> None:
    for name in (b"bad\xff.py", b"caf\xc3\xa9/\xfe\xfd.txt", b"plain/a.py", b"\xc3(x"):
        text = shown(os.fsdecode(name))
        text.encode("utf-8")  # storable and JSON-safe
        assert raw(text) == name
    assert shown("café.py") == "café.py" and shown(BAD) == "bad\\xff.py"


def test_a_commit_with_a_non_utf8_name_is_attributed_whole(repo: Path) -> None:
    env = _call("changed", repo=str(repo), rev_range="HEAD")
    assert env["data"]["ingest"]["commits_behind"] == 0
    assert not any("could not be" in w for w in env["warnings"])
    assert _items(env) >= {
        ("python:function:ok.a", "modified"), ("core:file:ok.py", "modified"),
        ("core:file:bad\\xff.py", "added"), ("python:function:bad\\xff.b", "added"),
        ("core:file:dat\\xfe.txt", "added")}
    paths = {i["entity"]["path"] for i in env["data"]["items"]}
    assert {"bad\\xff.py", "dat\\xfe.txt", "ok.py"} <= paths


def test_the_cli_answer_is_valid_utf8_json(repo: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "warpline.cli", "changed", "HEAD~1..HEAD",
                           "--repo", str(repo), "--json"], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.decode("utf-8"))  # strict: no lone surrogate
    assert ("core:file:bad\\xff.py", "added") in _items(answer)


def test_timeline_and_churn_find_the_escaped_name(repo: Path) -> None:
    _call("changed", repo=str(repo), rev_range="HEAD")
    timeline = _call("timeline", repo=str(repo), entity="python:function:bad\\xff.b")
    assert [i["change_kind"] for i in timeline["data"]["items"]] == ["added"]
    by_path = _call("timeline", repo=str(repo), entity="bad\\xff.py")  # a path ref
    assert [i["change_kind"] for i in by_path["data"]["items"]] == ["added"]
    churn = _call("churn", repo=str(repo), entity_refs=["core:file:dat\\xfe.txt",
                                                        "python:function:ok.a"])
    counts = {i["entity"]["locator"]: i["churn_count"] for i in churn["data"]["items"]}
    assert counts == {"core:file:dat\\xfe.txt": 1, "python:function:ok.a": 2}


def test_the_worktree_answer_escapes_names_too(repo: Path) -> None:
    (repo / BAD).write_text("def b():\n    return 9\n")
    (repo / os.fsdecode(b"new\xfd.py")).write_text("def c():\n    return 5\n")
    env = _call("changed", repo=str(repo), rev_range="HEAD", include_worktree=True)
    assert _items(env) >= {("python:function:bad\\xff.b", "modified"),
                           ("python:function:new\\xfd.c", "added"),
                           ("core:file:new\\xfd.py", "added")}
