"""The store owns SQLite, and foreign errors stop at named seams.

Static: no module outside ``store/`` holds SQL or calls ``execute``; ``sqlite3`` errors
and ``pygit2.GitError`` are caught (or raised) only in the seam modules listed below.
Behavioural: real faults (a damaged store file, a repository with missing objects) answer
through the registry with the right error code or an honest answer, never a raw
``sqlite3``/``pygit2`` exception.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from warpline.errors import WarplineError
from warpline.registry import call_tool

PACKAGE = Path(__file__).resolve().parent.parent / "warpline"

# Modules outside store/ that may hold SQL: loomweave's own index (a peer's database that
# warpline reads, never owns) is read by its one reader.
SQL_OUTSIDE_STORE = frozenset({"graph/loomweave_source.py"})

# Where sqlite3's errors stop: the store; the peer-index reader (-> peer_unavailable);
# coverage.py's data file (-> invalid_argument); the dispatcher, the last line for a
# query that met a damaged store or a refusing disk (-> store_unreadable/unwritable).
SQLITE_SEAMS = frozenset({"graph/loomweave_source.py", "runners/pytest_covimport.py",
                          "registry.py"})
# Where pygit2.GitError stops: git/ (the pygit2 room: revisions, lookups, notes, the walks
# the store's catch-up asks for); the built-in extractor reading a commit's blobs (-> a
# "source failed" note).
GIT_SEAMS = frozenset({"graph/builtin/__init__.py"})

_SQL = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|"
                  r"DELETE\s+FROM|CREATE\s+(TEMP\s+|UNIQUE\s+)?(TABLE|INDEX)|PRAGMA\s+\w+)\b",
                  re.DOTALL)
_EXECUTE = {"execute", "executemany", "executescript"}
_SQLITE_ERRORS = {"Error", "DatabaseError", "OperationalError", "IntegrityError",
                  "ProgrammingError", "InterfaceError", "DataError", "NotSupportedError"}


def _modules() -> list[tuple[str, ast.Module]]:
    return [(p.relative_to(PACKAGE).as_posix(), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PACKAGE.rglob("*.py"))]


def _strings(tree: ast.AST) -> list[str]:
    """String literals, f-string pieces joined (docstrings excluded)."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
              for v in node.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.append("".join(str(v.value) if isinstance(v, ast.Constant) else "?"
                               for v in node.values))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings and id(node) not in pieces):
            out.append(node.value)
    return out


def sql_findings(tree: ast.AST) -> list[str]:
    """SQL text and ``execute`` calls in one module."""
    found = [f"calls .{node.func.attr}()" for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and node.func.attr in _EXECUTE]
    found += [f"SQL {text[:60]!r}" for text in _strings(tree) if _SQL.search(text)]
    return found


def foreign_error_names(tree: ast.AST) -> set[str]:
    """``sqlite3``/``pygit2`` error classes the module names (to catch or raise them)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "sqlite3" and node.attr in _SQLITE_ERRORS:
                names.add("sqlite3")
            if node.value.id == "pygit2" and node.attr.endswith("Error"):
                names.add("pygit2")
        elif isinstance(node, ast.ImportFrom) and node.module in ("sqlite3", "pygit2",
                                                                  "pygit2.errors"):
            if any(a.name.endswith("Error") for a in node.names):
                names.add("sqlite3" if node.module == "sqlite3" else "pygit2")
    return names


MODULES = _modules()


def test_no_module_outside_the_store_holds_sql() -> None:
    leaks = {name: found for name, tree in MODULES
             if not name.startswith("store/") and name not in SQL_OUTSIDE_STORE
             and (found := sql_findings(tree))}
    assert leaks == {}


def test_the_sql_check_can_fail() -> None:
    sample = ast.parse(
        'def f(conn, t):\n'
        '    """Reads SELECT x FROM y in prose only."""\n'
        '    conn.execute(f"SELECT id FROM {t} WHERE x = 1")\n'
        '    return "DELETE FROM entities"\n')
    found = sql_findings(sample)
    assert "calls .execute()" in found
    assert sum(f.startswith("SQL") for f in found) == 2  # the f-string and the literal
    assert sql_findings(ast.parse('"""SELECT a FROM b"""\nx = "Select the tests"\n')) == []


def test_sqlite3_errors_stop_at_their_seams() -> None:
    outside = sorted(name for name, tree in MODULES
                     if "sqlite3" in foreign_error_names(tree)
                     and not name.startswith("store/") and name not in SQLITE_SEAMS)
    assert outside == []


def test_pygit2_errors_stop_at_their_seams() -> None:
    outside = sorted(name for name, tree in MODULES
                     if "pygit2" in foreign_error_names(tree)
                     and not name.startswith("git/") and name not in GIT_SEAMS)
    assert outside == []


def test_the_seam_check_sees_every_spelling() -> None:
    code = ("import sqlite3, pygit2\nfrom pygit2 import GitError\n"
            "try:\n    pass\nexcept (sqlite3.OperationalError, pygit2.GitError):\n    pass\n")
    assert foreign_error_names(ast.parse(code)) == {"sqlite3", "pygit2"}
    assert foreign_error_names(ast.parse("from pygit2 import GitError\n")) == {"pygit2"}
    assert foreign_error_names(ast.parse("import sqlite3\nsqlite3.connect(':memory:')\n")) \
        == set()


def test_store_modules_leave_git_to_git() -> None:
    # The store writes rows; the walks and lookups it needs are warpline/git/ functions.
    importing = sorted(
        name for name, tree in MODULES if name.startswith("store/")
        for node in ast.walk(tree)
        if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "pygit2"
                                                  for a in node.names))
        or (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pygit2"))
    assert importing == []


def test_every_named_seam_exists_and_still_is_one() -> None:
    # A seam that stopped catching is removed from the list, not left to excuse a future leak.
    by_name = dict(MODULES)
    assert all("sqlite3" in foreign_error_names(by_name[n]) for n in SQLITE_SEAMS)
    assert all("pygit2" in foreign_error_names(by_name[n]) for n in GIT_SEAMS)
    assert all(sql_findings(by_name[n]) for n in SQL_OUTSIDE_STORE)


def test_entities_are_looked_up_on_one_path() -> None:
    # Refs become entity rows through service/shared/resolve.py over store/entities.py;
    # the only other readers of the table are the ingest writer's own id cache and its
    # lineage assignment (store/lineages.py: the lineage each new event belongs to, and
    # store/relineage.py: its replay in history order after an out-of-order ingest) and the
    # schema migrations (migration 9 gives every stored event its lineage). (Joins
    # from change events, in store/events.py and store/lineages.py, read rows already
    # chosen.)
    readers = sorted(name for name, tree in MODULES if name != "graph/loomweave_source.py"
                     and any(re.search(r"\bFROM entities\b", s) for s in _strings(tree)))
    assert readers == ["store/commit_rows.py", "store/entities.py", "store/lineages.py",
                       "store/migrations.py", "store/relineage.py"]
    lookups = sorted(name for name, tree in MODULES for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom)
                     and node.module == "warpline.store.entities"
                     and any(a.name in {"rows_by", "known_seis"} for a in node.names))
    assert lookups == ["service/shared/resolve.py", "service/shared/sei.py"]


# -- real faults, through the registry ------------------------------------------------------

READ_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("warpline_change_list", {"rev_range": "HEAD~2..HEAD"}),
    ("warpline_entity_churn_count_get", {"entity_refs": ["m1.f1"]}),
    ("warpline_entity_timeline_get", {"entity_ref": "m1.f1"}),
    ("warpline_impact_radius_get", {"rev_range": "HEAD~1..HEAD"}),
    ("warpline_reverify_worklist_get", {"rev_range": "HEAD~1..HEAD"}),
    ("warpline_edge_snapshot_capture", {}),
    ("warpline_verification_record", {"commit": "HEAD", "kind": "tests"}),
]


def _three_commits(path: Path) -> FixtureRepo:
    repo = FixtureRepo(path)
    for i in (1, 2, 3):
        repo.commit({f"m{i}.py": f"def f{i}():\n    return {i}\n"}, f"c{i}")
    return repo


def _outcome(tool: str, repo: Path, arguments: dict[str, Any]) -> tuple[str, Any]:
    try:
        envelope = call_tool(tool, {"repo": str(repo), **arguments})
    except WarplineError as exc:
        return exc.code, exc.details
    return "ok", envelope


def _delete_object(repo: FixtureRepo, sha: str) -> None:
    loose = repo.path / ".git" / "objects" / sha[:2] / sha[2:]
    os.chmod(loose, 0o644)
    loose.unlink()
    assert sha not in repo.repo.odb


@pytest.mark.parametrize("damage", ["header", "pages"])
def test_a_damaged_store_file_is_store_unreadable_for_every_tool(tmp_path: Path,
                                                                 damage: str) -> None:
    repo = _three_commits(tmp_path / "r")
    assert _outcome("warpline_change_list", repo.path, {"rev_range": "HEAD~2..HEAD"})[0] == "ok"
    state = repo.path / ".weft" / "warpline"
    db = state / "warpline.db"
    for side in state.glob("warpline.db-*"):
        side.unlink()
    data = bytearray(db.read_bytes())
    if damage == "header":
        data[:100] = b"not a database " * 6 + b"!" * 10
    else:  # every page after the first: the schema reads, the tables do not
        for offset in range(4096, len(data), 4096):
            data[offset:offset + 100] = bytes(range(100))
    db.write_bytes(bytes(data))
    codes = {tool: _outcome(tool, repo.path, args)[0] for tool, args in READ_CALLS}
    assert codes == dict.fromkeys(codes, "store_unreadable")
    code, envelope = _outcome("warpline_project_status_get", repo.path, {})
    assert code == "ok"
    assert envelope["data"]["store"]["readable"] is False


def test_a_missing_commit_object_is_invalid_repo_naming_the_object(tmp_path: Path) -> None:
    repo = _three_commits(tmp_path / "r")
    middle = str(repo.repo.revparse_single("HEAD~1").id)
    _delete_object(repo, middle)
    outcomes = {tool: _outcome(tool, repo.path, args) for tool, args in READ_CALLS
                if tool != "warpline_verification_record"}
    assert {tool: code for tool, (code, _) in outcomes.items()} == \
        dict.fromkeys(outcomes, "invalid_repo")
    assert all(details["missing_object"] == middle for _, details in outcomes.values())
    # Recording a verification of HEAD needs no history walk: it still works.
    assert _outcome("warpline_verification_record", repo.path,
                    {"commit": "HEAD", "kind": "tests"})[0] == "ok"


def test_a_missing_blob_is_an_honest_answer_never_a_leak(tmp_path: Path) -> None:
    repo = _three_commits(tmp_path / "r")
    head = repo.repo.head.peel(pygit2.Commit)
    blob = str(head.tree["m3.py"].id)
    _delete_object(repo, blob)
    outcomes = {tool: _outcome(tool, repo.path, args) for tool, args in READ_CALLS}
    assert {tool: code for tool, (code, _) in outcomes.items()} == dict.fromkeys(outcomes, "ok")
    changed = outcomes["warpline_change_list"][1]
    assert any("could not be ingested" in w and head.short_id in w for w in changed["warnings"])
    impact = outcomes["warpline_impact_radius_get"][1]
    # No graph could be built: the answer says the edges were skipped, it does not claim
    # that nothing depends on the change.
    assert impact["enrichment"]["edges"] == "skipped"
    assert any("built-in source failed" in w for w in impact["warnings"])
