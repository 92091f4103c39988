"""The synthetic-history generator behind bench/: deterministic, and shaped like a project."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pygit2
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from _gen_lines import AUTHORS
from genhistory import Stats, generate, generate_with_stats

COMMITS = 40


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[pygit2.Repository, Stats]:
    path = tmp_path_factory.mktemp("history")
    _, stats = generate_with_stats(path, COMMITS, seed=3, pack=False)
    return pygit2.Repository(str(path)), stats


def _commits(repo: pygit2.Repository) -> list[pygit2.Commit]:
    order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
    return list(repo.walk(repo.head.target, order))


def _blobs(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str = ""):  # type: ignore[no-untyped-def]
    for entry in tree:
        if entry.type_str == "tree":
            yield from _blobs(repo, repo[entry.id].peel(pygit2.Tree), f"{prefix}{entry.name}/")
        else:
            yield f"{prefix}{entry.name}", entry.id


def _deltas(repo: pygit2.Repository, commit: pygit2.Commit) -> list[pygit2.DiffDelta]:
    diff = repo.diff(commit.parents[0].tree, commit.tree)  # type: ignore[call-overload]
    diff.find_similar()
    return list(diff.deltas)


def test_the_same_seed_gives_the_same_head_sha(tmp_path: Path) -> None:
    first = generate(tmp_path / "a", COMMITS, seed=11)
    second = generate(tmp_path / "b", COMMITS, seed=11)
    other = generate(tmp_path / "c", COMMITS, seed=12)
    assert first == second
    assert other != first


def test_it_writes_the_requested_number_of_commits_on_main(
    history: tuple[pygit2.Repository, Stats],
) -> None:
    repo, stats = history
    assert len(_commits(repo)) == COMMITS == stats.commits
    assert repo.head.shorthand == "main"


def test_the_history_has_merges_renames_and_deletions(
    history: tuple[pygit2.Repository, Stats],
) -> None:
    repo, _ = history
    merges = renames = deletions = 0
    for commit in _commits(repo):
        if len(commit.parents) == 2:
            merges += 1
        elif commit.parents:
            statuses = [d.status for d in _deltas(repo, commit)]
            renames += statuses.count(pygit2.enums.DeltaStatus.RENAMED)
            deletions += statuses.count(pygit2.enums.DeltaStatus.DELETED)
    assert merges >= 1
    assert renames >= 1
    assert deletions >= 1


def test_merges_are_what_git_would_merge_except_a_resolved_file(
    history: tuple[pygit2.Repository, Stats],
) -> None:
    repo, stats = history
    resolved = 0
    for commit in _commits(repo):
        if len(commit.parents) != 2:
            continue
        index = repo.merge_commits(commit.parents[0], commit.parents[1])
        assert not index.conflicts
        merged = repo[index.write_tree(repo)].peel(pygit2.Tree)
        differs = list(repo.diff(merged, commit.tree).deltas)  # type: ignore[call-overload]
        assert len(differs) <= 1
        if differs:
            path = differs[0].new_file.path
            assert path.endswith(".py")
            assert all(commit.tree[path].id != p.tree[path].id for p in commit.parents
                       if path in p.tree)
            resolved += 1
    assert resolved == stats.conflict_merges


def test_there_is_a_long_module_with_hundreds_of_definitions(
    history: tuple[pygit2.Repository, Stats],
) -> None:
    repo, _ = history
    tree = repo.head.peel(pygit2.Commit).tree
    longest = max((repo[oid].read_raw() for path, oid in _blobs(repo, tree)
                   if path.endswith(".py")), key=len)
    defs = [n for n in ast.walk(ast.parse(longest))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    assert longest.count(b"\n") >= 2000
    assert len(defs) >= 100


def test_every_python_file_parses_except_the_recorded_broken_ones(
    history: tuple[pygit2.Repository, Stats],
) -> None:
    repo, stats = history
    seen: set[pygit2.Oid] = set()
    broken: set[str] = set()
    for commit in _commits(repo):
        for path, oid in _blobs(repo, commit.tree):
            if not path.endswith(".py") or oid in seen:
                continue
            seen.add(oid)
            try:
                ast.parse(repo[oid].read_raw())
            except SyntaxError:
                broken.add(str(oid))
    assert broken == set(stats.broken_blobs)
    assert broken  # the generator leaves a stray conflict marker now and then


def test_commit_times_increase_and_authors_are_the_fixed_team(
    history: tuple[pygit2.Repository, Stats],
) -> None:
    repo, _ = history
    team = {(name, email) for name, email, _, _ in AUTHORS}
    for commit in _commits(repo):
        assert (commit.author.name, commit.author.email) in team
        assert all(commit.commit_time > p.commit_time for p in commit.parents)


def test_it_refuses_a_directory_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(FileExistsError):
        generate(tmp_path, 5)
    assert (tmp_path / "precious.txt").read_text(encoding="utf-8") == "keep me"
