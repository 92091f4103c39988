"""Which run backs a pass (``warpline.service.admin.backing``), on real pytest runs of a
small project in a real git repository: the receipt each run leaves, the refusals
(``unbacked_pass`` and its reason), the scope a record carries, a stronger scope replacing a
weaker one, ``verify-record`` as an attestation, and scopes read from untrusted notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.gitfixture import run_git
from tests.test_ci_github_job import FILES, _env, _pytest, _warpline, _write
from warpline import scope as scopes
from warpline.git import notes
from warpline.store.db import Store


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "config", "user.name", "T")
    run_git(root, "config", "user.email", "t@example.com")
    _write(root, FILES)
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "calc")
    return root


def _record(root: Path) -> dict[str, Any]:
    done = _warpline(root, _env(), "ci", "--record", "test_pass", "--no-push", "--json")
    body: dict[str, Any] = json.loads(done.stdout)
    body["returncode"] = done.returncode
    return body


def _rows(root: Path) -> list[tuple[Any, ...]]:
    with Store.open(root) as store:
        return [tuple(r) for r in store.conn.execute(
            "SELECT kind, actor, scope, run FROM verifications")]


def test_no_receipt_then_a_dirty_run_then_a_clean_one(project: Path) -> None:
    refused = _record(project)
    assert (refused["returncode"], refused["error_code"]) == (1, "unbacked_pass")
    assert refused["details"]["reason"] == "no_receipt"
    # The store exists now: pytest leaves a receipt. An untracked module changes the run.
    (project / "calc" / "extra.py").write_text("X = 1\n")
    assert _pytest(project, _env()).returncode == 0
    assert _record(project)["details"]["reason"] == "dirty_tree"
    # An untracked report does not: the run is the commit's.
    (project / "calc" / "extra.py").unlink()
    (project / "report.md").write_text("notes\n")
    assert _pytest(project, _env()).returncode == 0
    done = _record(project)
    assert done["returncode"] == 0, done
    assert done["record"]["data"]["scope"] == "whole_suite"


def test_verify_records_the_scope_and_a_whole_suite_pass_replaces_a_narrow_one(
        project: Path) -> None:
    run = _pytest(project, _env(), "--warpline-verify", "test_pass", "-k", "test_add")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "scope selection" in run.stdout
    [(kind, actor, extent, facts)] = _rows(project)
    assert (kind, actor, extent) == ("test_pass", "pytest", "selection")
    assert json.loads(facts)["selection"]["basis"] == "user"
    assert json.loads(facts)["tests_run"] == 1
    run = _pytest(project, _env(), "--warpline-verify", "test_pass")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "recorded" in run.stdout and "scope whole_suite" in run.stdout
    [(_, _, extent, facts)] = _rows(project)
    assert extent == "whole_suite" and json.loads(facts)["tests_run"] == 3
    # The note holds both lines; the stronger one is what is read.
    repo_notes = notes.read_all(pygit2.Repository(str(project))).records
    assert [(r.kind, r.extent) for r in repo_notes] == [("test_pass", "whole_suite")]
    # A narrower pass afterwards is not a downgrade.
    run = _pytest(project, _env(), "--warpline-verify", "test_pass", "-k", "test_mul")
    assert "already_recorded" in run.stdout
    assert _rows(project)[0][2] == "whole_suite"


def test_a_failing_verify_run_records_nothing(project: Path) -> None:
    _write(project, {"tests/test_ops.py": FILES["tests/test_ops.py"].replace("== 6", "== 7")})
    run_git(project, "commit", "-qam", "break a test")
    run = _pytest(project, _env(), "--warpline-verify", "test_pass")
    assert run.returncode == 1
    assert "not recorded" in run.stdout
    assert _rows(project) == []


def test_verify_record_is_an_attestation(project: Path) -> None:
    done = _warpline(project, _env(), "verify-record", "--commit", "HEAD", "--kind",
                     "ci_pass", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["data"]
    assert (data["scope"], data["run"]) == ("attested", None)
    answer = _warpline(project, _env(), "reverify", "HEAD", "--json")
    items = json.loads(answer.stdout)["data"]["items"]
    assert {i["verification"]["scope"] for i in items if i["verification"]["state"] == "fresh"} \
        == {"attested"}


@pytest.mark.parametrize(("extent", "run", "expected"), [
    ("whole_suite", None, "unknown"),  # a claim without its run's facts is not believed
    ("whole_suite", {"tested_commit": "a" * 40, "tests_run": 3}, "whole_suite"),
    ("whole_suite", {"tested_commit": "a" * 40, "tests_run": -1}, "unknown"),
    ("selection", {"tested_commit": "a" * 40, "tests_run": 1}, "unknown"),  # no basis
    ("selection", {"tested_commit": "a" * 40, "tests_run": 1,
                   "selection": {"basis": "map"}}, "selection"),
    ("everything", {"tested_commit": "a" * 40, "tests_run": 3}, "unknown"),
    ("attested", None, "attested"),
    (None, None, "unknown"),
])
def test_scopes_from_other_machines_are_read_as_data(extent: Any, run: Any,
                                                     expected: str) -> None:
    assert scopes.parse(extent, run)[0] == expected
    line = json.dumps({"v": 1, "type": "verification", "commit": "b" * 40, "kind": "t",
                       "source": "warpline", "actor": None, "verified_at": 1,
                       "scope": extent, "run": run})
    record = notes._parse_line(line, "b" * 40)
    assert isinstance(record, notes.NoteRecord) and record.extent == expected


def test_scope_ranks_put_the_whole_suite_first_and_a_static_selection_last() -> None:
    ranked = sorted([("selection", "static"), ("unknown", None), ("attested", None),
                     ("selection", "map"), ("whole_suite", None), ("selection", "mixed")],
                    key=lambda s: -scopes.rank(*s))
    assert ranked == [("whole_suite", None), ("selection", "map"), ("selection", "mixed"),
                      ("attested", None), ("unknown", None), ("selection", "static")]
