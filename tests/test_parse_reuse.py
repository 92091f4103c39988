"""Parse reuse across versions of one file: a merge's sides and a cross-module rename are
derived from the first parent's cached parse, with the same result as parsing whole.

Each test ingests the history with ONE cache (the backfill's way, so the derivation is
taken) and compares with a fresh cache per commit (every side parsed whole)."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FileValue, FixtureRepo
from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.parsecache import blob_data
from warpline.git.repo import open_repo, resolve_commit
from warpline.lang.pyentities import parse_entities

FOUR = """\
import os

LIMIT = 10


class Box:
    def one(self):
        return 1

    def two(self):
        return 2


def three():
    return 3


def four():
    return 4
"""


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def _walk(repo: FixtureRepo, shas: list[str], cache: DefinitionCache | None) -> list[object]:
    handle = open_repo(repo.path)
    return [commit_changes(handle, resolve_commit(handle, sha), cache).changes for sha in shas]


def _same_both_ways(repo: FixtureRepo, shas: list[str]) -> tuple[DefinitionCache, list[object]]:
    shared = DefinitionCache()
    warm = _walk(repo, shas, shared)
    cold = [_walk(repo, [sha], None)[0] for sha in shas]
    assert warm == cold
    return shared, warm


def test_a_merge_resolution_is_derived_from_the_first_parent_with_whole_parse_events(
        repo: FixtureRepo) -> None:
    base = repo.commit({"calc.py": FOUR})
    ours = repo.commit({"calc.py": FOUR.replace("return 2", "return 20")})
    theirs = repo.commit({"calc.py": FOUR.replace("return 2", "return 21")
                          .replace("return 4", "return 40")}, parents=[base],
                         update_head=False)
    resolved = (FOUR.replace("return 2", "return 2021").replace("return 4", "return 40")
                + "\n\ndef five():\n    return 5\n")
    merge = repo.merge_commit(ours, theirs, {"calc.py": resolved})
    shared, warm = _same_both_ways(repo, [base, ours, theirs, merge])
    assert shared.incremental >= 3  # ours, theirs, and the merge's own version
    events = {(c.locator, c.change_kind) for c in warm[-1]}  # type: ignore[attr-defined]
    assert events == {("core:file:calc.py", "modified"),
                      ("python:function:calc.Box.two", "modified"),
                      ("python:function:calc.five", "added")}


def test_a_merge_whose_resolution_breaks_the_file_reports_it_unparsed(
        repo: FixtureRepo) -> None:
    base = repo.commit({"calc.py": FOUR})
    ours = repo.commit({"calc.py": FOUR.replace("return 3", "return 30")})
    theirs = repo.commit({"calc.py": FOUR.replace("return 3", "return 31")}, parents=[base],
                         update_head=False)
    merge = repo.merge_commit(ours, theirs,
                              {"calc.py": "}}}} ))) ]]]\n"})
    handle = open_repo(repo.path)
    cache = DefinitionCache()
    for sha in (base, ours, theirs):
        commit_changes(handle, resolve_commit(handle, sha), cache)
    changes = commit_changes(handle, resolve_commit(handle, merge), cache)
    assert changes.unparsed_files == ("calc.py",)
    assert changes == commit_changes(handle, resolve_commit(handle, merge), None)


def test_a_rename_to_another_module_with_an_edit_matches_a_whole_parse(
        repo: FixtureRepo) -> None:
    first = repo.commit({"pkg/calc.py": FOUR})
    moved = repo.commit({"pkg/maths.py": FOUR.replace("return 3", "return 33")},
                        renames={"pkg/calc.py": "pkg/maths.py"})
    shared, warm = _same_both_ways(repo, [first, moved])
    assert shared.incremental == 1
    kinds = {(c.locator, c.change_kind, c.also_modified)
             for c in warm[-1] if c.kind != "file"}  # type: ignore[attr-defined]
    assert ("python:function:pkg.maths.three", "moved", True) in kinds
    assert ("python:function:pkg.maths.four", "moved", False) in kinds


def test_get_near_equals_a_whole_parse_and_falls_back_without_a_cached_base(
        repo: FixtureRepo) -> None:
    old_sha = repo.commit({"m.py": FOUR})
    new_sha = repo.commit({"m.py": FOUR.replace("    def two(self):\n",
                                                "    @property\n    def two(self):\n")})
    handle = open_repo(repo.path)
    old_id = _blob(handle, old_sha, "m.py")
    new_id = _blob(handle, new_sha, "m.py")
    def load_old() -> bytes:
        return blob_data(handle, old_id)

    def load_new() -> bytes:
        return blob_data(handle, new_id)

    whole = parse_entities(load_new())
    assert whole is not None
    cold = DefinitionCache()
    got = cold.get_near(new_id, load_new, old_id, load_old)  # base not cached: parsed whole
    assert got is not None and got.entities == whole.entities and cold.incremental == 0
    warm = DefinitionCache()
    warm.get(old_id, load_old)
    got = warm.get_near(new_id, load_new, old_id, load_old)
    assert got is not None and got.entities == whole.entities and warm.incremental == 1


def _blob(handle: pygit2.Repository, sha: str, path: str) -> pygit2.Oid:
    return resolve_commit(handle, sha).tree[path].id


def _git_remerge_blob(repo: FixtureRepo, ours: str, theirs: str, path: str) -> str:
    """The blob git's own clean three-way merge of ``ours`` and ``theirs`` gives ``path``."""
    import subprocess

    tree = subprocess.run(["git", "-C", str(repo.path), "merge-tree", "--write-tree", ours,
                           theirs], check=True, capture_output=True, text=True).stdout.split()[0]
    return subprocess.run(["git", "-C", str(repo.path), "rev-parse", f"{tree}:{path}"],
                          check=True, capture_output=True, text=True).stdout.strip()


def test_a_clean_merge_parses_nothing_and_claims_nothing_unread(repo: FixtureRepo) -> None:
    """A merge whose file is what git's clean re-merge gives made no change of its own
    there: it is not parsed, and not listed unparsed even though one branch broke the
    file (that branch's commit lists it, where the break happened)."""
    broken = FOUR + "}}}} ))) ]]]\n" * 60  # more garbage than code: no parser reads it
    base = repo.commit({"calc.py": FOUR, "other.py": FOUR})
    ours = repo.commit({"calc.py": FOUR.replace("return 1", "return 10"),
                        "other.py": FOUR.replace("return 1", "return 10")})
    theirs = repo.commit({"calc.py": broken, "other.py": FOUR.replace("return 4", "return 40")},
                         parents=[base], update_head=False)
    combined: dict[str, FileValue] = {"calc.py": broken.replace("return 1", "return 10"),
                "other.py": FOUR.replace("return 1", "return 10").replace("return 4",
                                                                          "return 40")}
    merge = repo.merge_commit(ours, theirs, combined)
    handle = open_repo(repo.path)
    for path in combined:
        assert _git_remerge_blob(repo, ours, theirs, path) == str(
            resolve_commit(handle, merge).tree[path].id)
    cold = DefinitionCache()
    changes = commit_changes(handle, resolve_commit(handle, merge), cold)
    assert (changes.changes, changes.unparsed_files) == ((), ())
    assert cold.misses == 0  # the re-merge is asked first: nothing parsed
    warm = DefinitionCache()  # every parent's version cached: the same answer
    walked = [commit_changes(handle, resolve_commit(handle, sha), warm)
              for sha in (base, ours, theirs)]
    assert walked[2].unparsed_files == ("calc.py",)
    misses = warm.misses
    assert commit_changes(handle, resolve_commit(handle, merge), warm) == changes
    assert warm.misses == misses  # neither merged version was parsed


def test_an_edit_of_a_version_no_commit_parsed_is_derived_from_the_paths_last_parse(
        repo: FixtureRepo) -> None:
    """After a clean merge (its combined version not parsed), the next edit's old side
    is derived from the last parsed version of that path, with a whole parse's events."""
    base = repo.commit({"calc.py": FOUR})
    ours = repo.commit({"calc.py": FOUR.replace("return 1", "return 10")})
    theirs = repo.commit({"calc.py": FOUR.replace("return 4", "return 40")}, parents=[base],
                         update_head=False)
    merged = FOUR.replace("return 1", "return 10").replace("return 4", "return 40")
    merge = repo.merge_commit(ours, theirs, {"calc.py": merged})
    edit = repo.commit({"calc.py": merged.replace("return 3", "return 30")})
    shared = DefinitionCache()
    _walk(repo, [base, ours, merge], shared)  # theirs' version uncached: re-merge first
    before = shared.incremental
    warm = _walk(repo, [edit], shared)
    cold = _walk(repo, [edit], None)
    assert warm == cold
    assert shared.incremental == before + 2  # the old side, then the new side
    assert {c.locator for c in warm[0] if c.kind != "file"} == {  # type: ignore[attr-defined]
        "python:function:calc.three"}


def test_the_last_parse_per_path_is_bounded_and_only_names_a_cached_parse(
        repo: FixtureRepo) -> None:
    shas = [repo.commit({"a.py": FOUR, "b.py": FOUR + "\n", "bad.py": "}}}} ))) ]]]\n"})]
    handle = open_repo(repo.path)
    ids = {p: _blob(handle, shas[0], p) for p in ("a.py", "b.py", "bad.py")}
    cache = DefinitionCache(maxsize=2)
    for path, oid in ids.items():
        cache.get(oid, lambda oid=oid: blob_data(handle, oid))  # type: ignore[misc]
        cache.remember(path, oid)
    assert cache.recent("a.py") is None  # its parse and its path were let go (maxsize 2)
    assert cache.recent("b.py") == ids["b.py"]
    assert cache.recent("bad.py") is None  # cached as unparsable: nothing to derive from
    assert cache.recent("never.py") is None
