"""Opening repositories and resolving revisions, with pygit2 errors translated."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from warpline.errors import InvalidRepo, InvalidRevRange
from warpline.git.repo import (
    commits_in_range,
    head_commit,
    open_repo,
    parse_rev_range,
    resolve_commit,
)


def _snapshot(path: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(path)), p.stat().st_size) for p in path.rglob("*"))


@pytest.fixture
def history(tmp_path: Path) -> tuple[FixtureRepo, list[str]]:
    repo = FixtureRepo(tmp_path / "repo")
    shas = [repo.commit({"a.py": f"X = {n}\n"}, f"c{n}") for n in range(4)]
    return repo, shas


def test_a_work_tree_opens(history: tuple[FixtureRepo, list[str]]) -> None:
    repo, _ = history
    opened = open_repo(repo.path)
    assert Path(opened.workdir or "").resolve() == repo.path.resolve()


def test_a_missing_path_is_an_invalid_repo_and_nothing_is_created(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(InvalidRepo) as exc:
        open_repo(missing)
    assert exc.value.code == "invalid_repo"
    assert exc.value.field == "repo"
    assert not missing.exists()


def test_a_plain_directory_is_an_invalid_repo_and_stays_untouched(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("hi\n")
    before = _snapshot(plain)
    with pytest.raises(InvalidRepo) as exc:
        open_repo(str(plain))
    assert exc.value.code == "invalid_repo"
    assert _snapshot(plain) == before


def test_a_file_path_is_an_invalid_repo(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x\n")
    with pytest.raises(InvalidRepo) as exc:
        open_repo(target)
    assert exc.value.code == "invalid_repo"


def test_a_subdirectory_of_a_work_tree_is_rejected_not_adopted(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/a.py": "X = 1\n"})
    before = _snapshot(repo.path / "pkg")
    with pytest.raises(InvalidRepo) as exc:
        open_repo(repo.path / "pkg")
    assert exc.value.code == "invalid_repo"
    assert _snapshot(repo.path / "pkg") == before


def test_a_bare_repository_is_an_invalid_repo(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    pygit2.init_repository(str(bare), bare=True)
    with pytest.raises(InvalidRepo) as exc:
        open_repo(bare)
    assert exc.value.code == "invalid_repo"


def test_an_empty_repository_has_no_head_commit(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "empty")
    assert head_commit(open_repo(repo.path)) is None
    with pytest.raises(InvalidRevRange) as exc:
        resolve_commit(open_repo(repo.path), "HEAD")
    assert exc.value.code == "invalid_rev_range"


def test_revisions_resolve_to_commits(history: tuple[FixtureRepo, list[str]]) -> None:
    repo, shas = history
    handle = open_repo(repo.path)
    assert str(resolve_commit(handle, "HEAD").id) == shas[-1]
    assert str(resolve_commit(handle, "HEAD~2").id) == shas[1]
    assert str(resolve_commit(handle, shas[0][:10]).id) == shas[0]
    assert str(resolve_commit(handle, "main").id) == shas[-1]


@pytest.mark.parametrize(
    "rev", ["", "  ", "no-such-branch", "HEAD~99", "HEAD^{tree}", "a..b..c", ":/nomatch", "0" * 40]
)
def test_bad_revisions_are_invalid_rev_range(
    history: tuple[FixtureRepo, list[str]], rev: str
) -> None:
    repo, _ = history
    with pytest.raises(InvalidRevRange) as exc:
        resolve_commit(open_repo(repo.path), rev, field="head_ref")
    assert exc.value.code == "invalid_rev_range"
    assert exc.value.field == "head_ref"


def test_a_single_rev_means_that_one_commit(history: tuple[FixtureRepo, list[str]]) -> None:
    repo, shas = history
    base, head = parse_rev_range(open_repo(repo.path), "HEAD~1")
    assert base is not None
    assert (str(base.id), str(head.id)) == (shas[1], shas[2])


def test_a_single_root_rev_has_no_base(history: tuple[FixtureRepo, list[str]]) -> None:
    repo, shas = history
    base, head = parse_rev_range(open_repo(repo.path), shas[0])
    assert base is None
    assert str(head.id) == shas[0]


def test_a_range_names_its_base_and_head(history: tuple[FixtureRepo, list[str]]) -> None:
    repo, shas = history
    handle = open_repo(repo.path)
    base, head = parse_rev_range(handle, f"{shas[0]}..{shas[2]}")
    assert base is not None
    assert (str(base.id), str(head.id)) == (shas[0], shas[2])
    base, head = parse_rev_range(handle, "HEAD~2..")
    assert base is not None
    assert (str(base.id), str(head.id)) == (shas[1], shas[3])


@pytest.mark.parametrize("text", ["..", "A...B", "HEAD...HEAD~1", "nope..HEAD", "HEAD..nope"])
def test_malformed_ranges_are_invalid_rev_range(
    history: tuple[FixtureRepo, list[str]], text: str
) -> None:
    repo, _ = history
    with pytest.raises(InvalidRevRange) as exc:
        parse_rev_range(open_repo(repo.path), text)
    assert exc.value.code == "invalid_rev_range"
    assert exc.value.field == "rev_range"


def test_commits_in_a_range_exclude_the_base_and_come_parents_first(
    history: tuple[FixtureRepo, list[str]],
) -> None:
    repo, shas = history
    handle = open_repo(repo.path)
    base, head = parse_rev_range(handle, f"{shas[0]}..{shas[3]}")
    assert [str(c.id) for c in commits_in_range(handle, base, head)] == shas[1:]
    everything = commits_in_range(handle, None, head)
    assert [str(c.id) for c in everything] == shas


def test_commits_in_a_range_include_a_merged_branch(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    root = repo.commit({"a.py": "A = 1\n"})
    main = repo.commit({"a.py": "A = 2\n"})
    side = repo.commit({"b.py": "B = 1\n"}, parents=[root], update_head=False)
    merge = repo.merge_commit(main, side, {"b.py": "B = 1\n"})
    handle = open_repo(repo.path)
    order = [str(c.id) for c in commits_in_range(handle, None, resolve_commit(handle, merge))]
    assert set(order) == {root, main, side, merge}
    assert order.index(root) < order.index(side) < order.index(merge)
    assert order.index(main) < order.index(merge)


def test_opening_accepts_a_path_like_and_a_string(
    history: tuple[FixtureRepo, list[str]],
) -> None:
    repo, _ = history
    assert open_repo(os.fspath(repo.path)).workdir == open_repo(repo.path).workdir
