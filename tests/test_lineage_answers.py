"""Lineage through the tools: timelines follow it both ways, churn counts it, moves and
merges are exact on the wire, and what could not be read is named in the warnings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from tests.test_lineage import REPORTER
from warpline.git.attribution import commit_changes
from warpline.git.repo import resolve_commit

OLD = "python:function:progress.ProgressReporter.report_speed"
NEW = "python:function:progress.ProgressReporterThread.report_speed"


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    from warpline.registry import call_tool

    env = call_tool(tool, arguments)
    assert_valid_envelope(env)
    return env


@pytest.fixture
def renamed(tmp_path: Path) -> FixtureRepo:
    """report_speed edited twice, its class renamed, then edited again."""
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"progress.py": REPORTER}, "add")
    v2 = REPORTER.replace("return 0.0", "return 0.0  # nothing yet")
    r.commit({"progress.py": v2}, "edit 1")
    v3 = v2.replace("elapsed <= 0", "elapsed <= 0.0")
    r.commit({"progress.py": v3}, "edit 2")
    v4 = v3.replace("ProgressReporter", "ProgressReporterThread")
    r.commit({"progress.py": v4}, "rename the class")
    r.commit({"progress.py": v4.replace("self.done / elapsed", "float(self.done) / elapsed")},
             "edit 3")
    return r


def test_the_timeline_of_the_new_name_reaches_back_past_the_class_rename(
    renamed: FixtureRepo,
) -> None:
    env = _call("timeline", repo=str(renamed.path), entity=NEW, sort_order="asc")
    items = env["data"]["items"]
    assert [i["change_kind"] for i in items] == ["added", "modified", "modified", "moved",
                                                 "modified"]
    moved = items[3]
    assert (moved["previous_locator"], moved["previous_path"], moved["also_modified"]) == (
        OLD, "progress.py", False)
    assert items[1]["also_modified"] is None


def test_the_timeline_of_the_old_name_says_where_it_went(renamed: FixtureRepo) -> None:
    env = _call("timeline", repo=str(renamed.path), entity=OLD, sort_order="asc")
    assert len(env["data"]["items"]) == 5
    assert any(NEW in w for w in env["warnings"])


def test_churn_counts_the_whole_lineage_for_the_current_name(renamed: FixtureRepo) -> None:
    env = _call("churn", repo=str(renamed.path), entity_refs=[NEW, OLD])
    counts = {i["entity"]["locator"]: i["churn_count"] for i in env["data"]["items"]}
    assert counts == {NEW: 5, OLD: 3}  # the stale name keeps only its own events


def test_changed_puts_previous_path_and_also_modified_on_the_wire(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"src/demo/calc.py": "def f(x):\n    return x + 1\n"})
    r.commit({"demo/calc.py": "def f(x):\n    return x + 2\n"},
             renames={"src/demo/calc.py": "demo/calc.py"})
    env = _call("changed", repo=str(r.path), rev_range="HEAD")
    items = {i["entity"]["locator"]: i for i in env["data"]["items"]}
    f = items["python:function:demo.calc.f"]
    assert (f["change_kind"], f["previous_path"], f["also_modified"]) == (
        "moved", "src/demo/calc.py", True)
    module = items["python:module:demo.calc"]
    assert (module["change_kind"], module["also_modified"]) == ("moved", False)


def test_changed_of_a_merge_commit_means_that_commit(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "repo")
    base = r.commit({"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 1\n"})
    r.branch("topic", base)
    r.checkout("topic")
    side = r.commit({"b.py": "def b():\n    return 2\n"}, "topic edits b")
    r.checkout("main")
    ours = r.commit({"a.py": "def a():\n    return 2\n"}, "main edits a")
    merge = r.merge_commit(ours, side, {"b.py": "def b():\n    return 2\n"}, "merge")
    env = _call("changed", repo=str(r.path), rev_range=merge)
    assert env["data"]["range"]["commit_count"] == 1
    assert env["data"]["items"] == []  # a clean merge introduced nothing itself


def test_unreadable_python_in_the_range_is_named_in_the_warnings(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"ok.py": "X = 1\n"})
    bad = r.commit({"bad.py": "}}}} ))) ]]]\n"}, "no parser reads this")
    env = _call("changed", repo=str(r.path), rev_range="HEAD")
    assert any(f"bad.py@{bad[:12]}" in w for w in env["warnings"])
    clean = _call("changed", repo=str(r.path), rev_range="HEAD~1")
    assert not any("could not be read" in w for w in clean["warnings"])


def _many_modules(tmp_path: Path, count: int) -> tuple[FixtureRepo, str]:
    r = FixtureRepo(tmp_path / "repo")
    files = {f"old/m{i}.py": f"def f{i}(x):\n    return x * {i}\n" for i in range(count)}
    r.commit(files, "add modules")  # type: ignore[arg-type]
    sha = r.commit({}, "move them all",
                   renames={f"old/m{i}.py": f"new/m{i}.py" for i in range(count)})
    return r, sha


def test_a_commit_moving_5000_modules_moves_every_one(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WARPLINE_RENAME_LIMIT", raising=False)
    r, sha = _many_modules(tmp_path, 5000)
    changes = commit_changes(r.repo, resolve_commit(r.repo, sha))
    kinds = {c.change_kind for c in changes.changes}
    assert kinds == {"moved"}
    assert sum(1 for c in changes.changes if c.kind == "module") == 5000
    assert changes.limits_hit == ()


def test_the_rename_limit_is_configurable_and_a_warning_says_when_it_was_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WARPLINE_RENAME_LIMIT", "1000")
    # A read stops at its budget even in the middle of one commit: this one takes seconds.
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "600")
    r, sha = _many_modules(tmp_path, 5000)
    changes = commit_changes(r.repo, resolve_commit(r.repo, sha))
    assert changes.limits_hit == ("rename_limit",)
    assert any(c.change_kind == "removed" for c in changes.changes)
    env = _call("changed", repo=str(r.path), rev_range="HEAD", limit=1)
    assert any(sha[:12] in w and "WARPLINE_RENAME_LIMIT" in w for w in env["warnings"])


def test_a_file_move_keeping_the_dotted_name_updates_the_entity_path(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"flask/app.py": "def run():\n    return 1\n"})
    r.commit({}, renames={"flask/app.py": "src/flask/app.py"})
    env = _call("timeline", repo=str(r.path), entity="python:function:flask.app.run",
                sort_order="asc")
    assert env["data"]["entity"]["path"] == "src/flask/app.py"
    moved = env["data"]["items"][-1]
    assert (moved["change_kind"], moved["path"], moved["previous_path"]) == (
        "moved", "src/flask/app.py", "flask/app.py")
