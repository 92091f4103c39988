"""Every file version parsed: tree-sitter's Python grammar reads what ``ast`` rejects
(py2-era syntax, a stray conflict marker), so those versions still get entity events; what
no parser can read is named in the answer's warnings for the range asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git.attribution import commit_changes
from warpline.git.repo import resolve_commit
from warpline.lang.pyentities import parse_body, parse_entities
from warpline.lang.pytolerant import available

pytestmark = pytest.mark.skipif(not available(), reason="tree-sitter is a runtime dependency")

PY2 = """\
import sys


def greet(name):
    print "hello, %s" % name
    return name


class Legacy(object):
    def handle(self, value):
        try:
            return int(value)
        except ValueError, exc:
            print >>sys.stderr, exc
            return None

    def echo(self, value):
        return `value`
"""


def _events(repo: FixtureRepo, sha: str) -> tuple[set[tuple[str, str]], tuple[str, ...]]:
    changes = commit_changes(repo.repo, resolve_commit(repo.repo, sha))
    return {(c.locator, c.change_kind) for c in changes.changes}, changes.unparsed_files


def test_py2_source_is_rejected_by_ast_and_read_by_the_tolerant_parser() -> None:
    assert parse_body(PY2.encode()) is None
    found = parse_entities(PY2.encode())
    assert found is not None
    assert set(found.counts) == {("function", "greet"), ("class", "Legacy"),
                                 ("function", "Legacy.handle"), ("function", "Legacy.echo")}
    handle = found.get("function", "Legacy.handle")
    assert handle is not None and handle.spans == ((10, 15),)


def test_an_edit_of_a_py2_file_is_attributed_to_the_edited_definition(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"legacy.py": PY2})
    sha = repo.commit({"legacy.py": PY2.replace("return None", "return -1")})
    events, unparsed = _events(repo, sha)
    assert events == {("core:file:legacy.py", "modified"),
                      ("python:function:legacy.Legacy.handle", "modified")}
    assert unparsed == ()


def test_a_stray_conflict_marker_leaves_the_other_definitions_attributed(
    tmp_path: Path,
) -> None:
    src = PY2.replace('print "hello, %s" % name', 'print("hello, %s" % name)').replace(
        "except ValueError, exc:", "except ValueError as exc:").replace(
        "print >>sys.stderr, exc", "print(exc)").replace("`value`", "repr(value)")
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"mod.py": src})
    broken = src.replace("class Legacy", "<<<<<<< HEAD\nclass Legacy")
    sha = repo.commit({"mod.py": broken.replace("return name", "return name.title()")})
    events, unparsed = _events(repo, sha)
    assert ("python:function:mod.greet", "modified") in events
    assert unparsed == ()


def test_what_no_parser_can_read_is_named_in_the_range_warnings(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"legacy.py": PY2})
    repo.commit({"legacy.py": PY2.replace("return None", "return -1")}, "py2 edit")
    bad = repo.commit({"garbage.py": "}}}} ))) ]]]\n"}, "unreadable")
    from warpline.registry import call_tool

    env: dict[str, Any] = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD~1"})
    assert_valid_envelope(env)
    assert ("python:function:legacy.Legacy.handle", "modified") in {
        (i["entity"]["locator"], i["change_kind"]) for i in env["data"]["items"]}
    assert not any("could not be read" in w for w in env["warnings"])
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD~2..HEAD"})
    assert any(f"garbage.py@{bad[:12]}" in w for w in env["warnings"])
