"""Lineage identity is per lineage, not per entity row: after ``f -> g`` a new, unrelated
``f`` added later starts a history of its own; g's timeline and churn never take it in,
and asking for ``f`` says where the earlier f went. Real git repositories throughout."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git.repo import head_commit, open_repo
from warpline.ingest.driver import Ingestor
from warpline.registry import call_tool
from warpline.store.db import Store, store_path
from warpline.store.migrations import MIGRATIONS

PARSE = ("def parse(text):\n    name, _, value = text.partition(':')\n"
         "    return name.strip(), value.strip()\n")
NEW_PARSE = "def parse(blob):\n    import json\n    return json.loads(blob)\n"
OLD_F = "python:function:hdr.parse"
G = "python:function:hdr.split_header"


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    env = call_tool(tool, arguments)
    assert_valid_envelope(env)
    return env


def _timeline(repo: FixtureRepo, locator: str) -> dict[str, Any]:
    return _call("timeline", repo=str(repo.path), entity=locator, sort_order="asc")


def _shas(env: dict[str, Any]) -> list[str]:
    return [item["commit"] for item in env["data"]["items"]]


def _churn(repo: FixtureRepo, *locators: str) -> dict[str, int]:
    env = _call("churn", repo=str(repo.path), entity_refs=list(locators))
    return {i["entity"]["locator"]: i["churn_count"] for i in env["data"]["items"]}


@pytest.fixture
def reused(tmp_path: Path) -> tuple[FixtureRepo, dict[str, str]]:
    """parse added and edited, renamed to split_header and edited, then a new, unrelated
    parse added to the same module and edited."""
    r = FixtureRepo(tmp_path / "repo")
    c: dict[str, str] = {}
    c["add"] = r.commit({"hdr.py": PARSE}, "add parse")
    v2 = PARSE.replace("value.strip()", "value.strip() or None")
    c["edit"] = r.commit({"hdr.py": v2}, "edit parse")
    v3 = v2.replace("def parse", "def split_header")
    c["rename"] = r.commit({"hdr.py": v3}, "rename parse to split_header")
    v4 = v3.replace("name.strip()", "name.strip().lower()")
    c["edit_g"] = r.commit({"hdr.py": v4}, "edit split_header")
    c["new_f"] = r.commit({"hdr.py": v4 + "\n\n" + NEW_PARSE}, "a new parse")
    c["edit_new_f"] = r.commit({"hdr.py": v4 + "\n\n" + NEW_PARSE.replace("(blob)", "(blob)\n")},
                               "edit the new parse")
    return r, c


def test_the_renamed_definition_keeps_its_history_and_not_the_reused_name_s(
        reused: tuple[FixtureRepo, dict[str, str]]) -> None:
    r, c = reused
    env = _timeline(r, G)
    assert _shas(env) == [c["add"], c["edit"], c["rename"], c["edit_g"]]
    assert [i["change_kind"] for i in env["data"]["items"]] == [
        "added", "modified", "moved", "modified"]


def test_the_reused_name_has_only_its_own_history_and_says_where_the_old_one_went(
        reused: tuple[FixtureRepo, dict[str, str]]) -> None:
    r, c = reused
    env = _timeline(r, OLD_F)
    assert _shas(env) == [c["new_f"], c["edit_new_f"]]
    assert env["data"]["items"][0]["change_kind"] == "added"
    assert any(G in w and "earlier definition" in w for w in env["warnings"])


def test_churn_counts_each_lineage_once(reused: tuple[FixtureRepo, dict[str, str]]) -> None:
    r, _ = reused
    assert _churn(r, G, OLD_F) == {G: 4, OLD_F: 2}


def test_a_rename_and_a_new_definition_of_the_old_name_in_one_commit(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "repo")
    add = r.commit({"hdr.py": PARSE}, "add parse")
    edit = r.commit({"hdr.py": PARSE.replace("value.strip()", "value.strip() or None")})
    both = r.commit({"hdr.py": NEW_PARSE + "\n\n" + PARSE.replace(
        "value.strip()", "value.strip() or None").replace("def parse", "def split_header")},
        "rename parse to split_header; a new parse")
    assert _shas(_timeline(r, G)) == [add, edit, both]
    env = _timeline(r, OLD_F)
    assert _shas(env) == [both]
    assert env["data"]["items"][0]["change_kind"] == "added"
    assert _churn(r, G, OLD_F) == {G: 3, OLD_F: 1}


def test_a_rename_back_is_one_lineage(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "repo")
    shas = [r.commit({"hdr.py": PARSE}, "add")]
    shas.append(r.commit({"hdr.py": PARSE.replace("def parse", "def split_header")}, "rename"))
    shas.append(r.commit({"hdr.py": PARSE}, "rename back"))
    shas.append(r.commit({"hdr.py": PARSE.replace("strip(), value", "strip(), value ")},
                         "edit"))
    assert _shas(_timeline(r, OLD_F)) == shas
    assert _churn(r, OLD_F) == {OLD_F: 4}


def test_a_class_name_reused_after_a_class_rename(tmp_path: Path) -> None:
    """The methods carried by the renamed class keep their history; a new class with the old
    name (and a method of the same name) starts its own."""
    body = ("class Reporter:\n    def report(self, n):\n        total = n * 2\n"
            "        return f'{total} done'\n")
    r = FixtureRepo(tmp_path / "repo")
    add = r.commit({"rep.py": body}, "add")
    moved = body.replace("class Reporter", "class ReporterThread")
    rename = r.commit({"rep.py": moved}, "rename the class")
    again = r.commit({"rep.py": moved + "\n\nclass Reporter:\n    def report(self):\n"
                      "        return None\n"}, "a new Reporter")
    carried = "python:function:rep.ReporterThread.report"
    reused_method = "python:function:rep.Reporter.report"
    assert _shas(_timeline(r, carried)) == [add, rename]
    assert _shas(_timeline(r, reused_method)) == [again]
    assert _churn(r, carried, reused_method) == {carried: 2, reused_method: 1}


def test_a_file_path_reused_after_a_file_rename(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "repo")
    add = r.commit({"a.txt": "one\n"}, "add a")
    move = r.commit({}, "move a to b", renames={"a.txt": "b.txt"})
    again = r.commit({"a.txt": "something else\n"}, "a new a")
    assert _shas(_timeline(r, "core:file:b.txt")) == [add, move]
    assert _shas(_timeline(r, "core:file:a.txt")) == [again]


def test_newer_commits_ingested_before_the_rename_join_its_lineage(
        reused: tuple[FixtureRepo, dict[str, str]]) -> None:
    """Out of order (a hook ingested the newest commit before the backfill reached the
    rename): the events written first fold into the lineage once the rename arrives."""
    r, c = reused
    handle = open_repo(r.path)
    walk = {str(x.id): x for x in handle.walk(head_commit(handle).id)}  # type: ignore[union-attr]
    with Store.open(r.path) as store:
        ingestor = Ingestor(store, handle)
        ingestor.run([walk[c["edit_g"]]])
        ingestor.run([walk[c[k]] for k in ("add", "edit", "rename", "new_f", "edit_new_f")])
        ingestor.catch_up(head_commit(handle))
    assert _shas(_timeline(r, G)) == [c["add"], c["edit"], c["rename"], c["edit_g"]]
    assert _churn(r, G, OLD_F) == {G: 4, OLD_F: 2}


def test_a_store_written_before_migration_9_keeps_its_lineages(tmp_path: Path) -> None:
    """An older store (migrations 1-5, lineage on entity rows) is migrated in place: every
    event takes its entity's lineage, and new lineage ids never collide with old ones."""
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"hdr.py": PARSE}, "add")
    r.commit({"hdr.py": PARSE.replace("def parse", "def split_header")}, "rename")
    path = store_path(r.path)
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    for migration in MIGRATIONS:
        if migration.version > 5:
            break
        for statement in (s for s in migration.sql.split(";") if s.strip()):
            conn.execute(statement)
        conn.execute("INSERT INTO migrations VALUES (?, ?, 0)", (migration.version,
                                                                  migration.name))
    conn.execute("PRAGMA user_version = 5")
    handle = open_repo(r.path)
    commits = list(handle.walk(head_commit(handle).id))  # type: ignore[union-attr]
    for n, commit in enumerate(reversed(commits), start=1):
        conn.execute("INSERT INTO commits (id, sha, author_name, author_email, authored_at, "
                     "committed_at, parent_count, event_count, unparsed_files, ingested_at, "
                     "topo) VALUES (?, ?, 'A', 'a@x', 0, ?, ?, 1, '[]', 0, ?)",
                     (n, str(commit.id), n, len(commit.parent_ids), n))
    conn.execute("INSERT INTO entities VALUES (7, ?, 'function', 'hdr.py', NULL, 7)", (OLD_F,))
    conn.execute("INSERT INTO entities VALUES (9, ?, 'function', 'hdr.py', NULL, 7)", (G,))
    conn.execute("INSERT INTO change_events (commit_id, entity_id, change_kind, path, "
                 "changed_at) VALUES (1, 7, 'added', 'hdr.py', 1)")
    conn.execute("INSERT INTO change_events (commit_id, entity_id, change_kind, path, "
                 "previous_locator, changed_at) VALUES (2, 9, 'moved', 'hdr.py', ?, 2)",
                 (OLD_F,))
    conn.commit()
    conn.close()
    assert len(_timeline(r, G)["data"]["items"]) == 2  # migrated on open, lineage kept
    new = r.commit({"hdr.py": "def other():\n    return 1\n"}, "replace")
    assert _shas(_timeline(r, "python:function:hdr.other")) == [new]
    with Store.open(r.path) as store:
        lineage = store.conn.execute("SELECT lineage FROM entities WHERE locator = ?",
                                     ("python:function:hdr.other",)).fetchone()[0]
    assert lineage > 9  # allocated past every old entity id


def test_a_commit_moving_many_definitions_keeps_each_its_own_lineage(tmp_path: Path) -> None:
    """pip moved its whole tree into ``src/`` in one commit: every moved definition
    continues its own history, none is merged into another's and none starts afresh.
    (Each move once relabelled by scanning every entity of the commit: quadratic in the
    commit's size; the writer spent 3 s of pip's backfill there.)"""
    r = FixtureRepo(tmp_path / "repo")
    count = 300
    r.commit({f"old/m{i}.py": f"def f{i}(x):\n    return x * {i}\n" for i in range(count)},
             "add modules")
    r.commit({f"old/m{i}.py": f"def f{i}(x):\n    return x * {i} + 1\n"
              for i in range(0, count, 2)}, "edit half of them")
    r.commit({}, "move them all", renames={f"old/m{i}.py": f"new/m{i}.py" for i in range(count)})
    new = [f"python:function:new.m{i}.f{i}" for i in range(count)]
    env = _call("churn", repo=str(r.path), entity_refs=new, limit=count)
    churn = {i["entity"]["locator"]: i["churn_count"] for i in env["data"]["items"]}
    assert churn == {loc: 3 if i % 2 == 0 else 2 for i, loc in enumerate(new)}
    with sqlite3.connect(store_path(r.path)) as conn:
        lineages = dict(conn.execute(
            "SELECT e.locator, count(DISTINCT ce.lineage) FROM change_events ce "
            "JOIN entities e ON e.id = ce.entity_id WHERE e.kind = 'function' "
            "GROUP BY e.locator"))
        distinct = conn.execute(
            "SELECT count(DISTINCT ce.lineage) FROM change_events ce "
            "JOIN entities e ON e.id = ce.entity_id WHERE e.kind = 'function'").fetchone()[0]
    assert set(lineages.values()) == {1}  # each name's events: one lineage
    assert distinct == count  # old/mN.fN and new/mN.fN share one; no two N share one


def _parallel_copy(root: Path) -> tuple[FixtureRepo, dict[str, str]]:
    """junit4's checkThat: one line adds parse and renames it to split_header; a parallel
    line (a rebased copy of the branch) adds the same parse and edits it; the merge keeps
    both, and a later commit deletes the copy."""
    r = FixtureRepo(root)
    c = {"base": r.commit({"other.py": "X = 1\n"}, "base")}
    c["add"] = r.commit({"hdr.py": PARSE}, "add parse")
    renamed = PARSE.replace("def parse", "def split_header")
    c["rename"] = r.commit({"hdr.py": renamed}, "rename parse to split_header")
    c["copy"] = r.commit({"hdr.py": PARSE}, "add parse (a rebased copy)", parents=[c["base"]],
                         update_head=False)
    edited = PARSE.replace("value.strip()", "value.strip() or None")
    c["edit_copy"] = r.commit({"hdr.py": edited}, "edit the copy", parents=[c["copy"]],
                              update_head=False)
    c["merge"] = r.merge_commit(c["rename"], c["edit_copy"],
                                {"hdr.py": renamed + "\n\n" + edited}, "merge the copy")
    c["delete"] = r.commit({"hdr.py": renamed}, "delete the copy")
    return r, c


def _ingest_in(repo: FixtureRepo, order: list[str], newest_first: bool = False) -> None:
    handle = open_repo(repo.path)
    walk = {str(x.id): x for x in handle.walk(head_commit(handle).id)}  # type: ignore[union-attr]
    with Store.open(repo.path) as store:
        ingestor = Ingestor(store, handle)
        if newest_first:
            ingestor.mark_unordered()
        ingestor.run([walk[sha] for sha in order])
        ingestor.catch_up(head_commit(handle))


@pytest.mark.parametrize("newest_first", [False, True])
def test_a_copy_added_on_a_parallel_line_joins_the_lineage_its_rename_carries(
        tmp_path: Path, newest_first: bool) -> None:
    """The rename is not in the copy's history: the copy is the same definition (its
    edits are the lineage's), not a new one reusing the name; deleting the copy later ends
    the copy only. In history order with the rename first (the order that gave the copy a
    lineage of its own), and newest first (settled once the store is complete)."""
    r, c = _parallel_copy(tmp_path / "repo")
    order = [c[k] for k in ("base", "add", "rename", "copy", "edit_copy", "merge", "delete")]
    _ingest_in(r, order[::-1] if newest_first else order, newest_first)
    env = _timeline(r, G)
    assert sorted(_shas(env)) == sorted([c["add"], c["rename"], c["copy"], c["edit_copy"]])
    assert {i["commit"]: i["change_kind"] for i in env["data"]["items"]}[c["copy"]] == "added"
    assert _churn(r, G) == {G: 4}
    assert _shas(_timeline(r, OLD_F)) == [c["delete"]]  # the copy's end, its own


def test_a_name_reused_after_the_rename_in_its_history_still_starts_a_new_lineage(
        tmp_path: Path) -> None:
    """The ancestry check keeps the rule where it holds: the rename is an ancestor."""
    r = FixtureRepo(tmp_path / "repo")
    add = r.commit({"hdr.py": PARSE}, "add parse")
    renamed = PARSE.replace("def parse", "def split_header")
    rename = r.commit({"hdr.py": renamed}, "rename")
    again = r.commit({"hdr.py": renamed + "\n\n" + PARSE}, "the same parse again")
    assert _shas(_timeline(r, G)) == [add, rename]
    assert _shas(_timeline(r, OLD_F)) == [again]
