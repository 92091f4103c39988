"""The walks and lookups the store's catch-up asks git for (``warpline/git/walks.py``), on
real repositories: the answers, and None/False where git cannot tell."""

from __future__ import annotations

from pathlib import Path

import pygit2

from tests.gitfixture import FixtureRepo
from warpline.git.walks import (
    commits_between,
    descends,
    git_dir_of,
    head_or_missing,
    peel_commit,
    pending_commits,
    topological_shas,
    tracked_among,
)

MISSING = "1" * 40  # well-formed, in no object database here


def _line(tmp_path: Path, count: int) -> tuple[FixtureRepo, list[str]]:
    repo = FixtureRepo(tmp_path / "repo")
    return repo, [repo.commit({"a.py": f"x = {n}\n"}, f"c{n}") for n in range(count)]


def _commit(repo: FixtureRepo, sha: str) -> pygit2.Commit:
    found = peel_commit(repo.repo, sha)
    assert found is not None
    return found


def test_pending_commits_are_parents_first_without_what_the_tips_reach(tmp_path: Path) -> None:
    repo, shas = _line(tmp_path, 5)
    head = _commit(repo, shas[-1])
    assert [str(c.id) for c in pending_commits(repo.repo, head, [])] == shas
    assert [str(c.id) for c in pending_commits(repo.repo, head, [shas[1]])] == shas[2:]
    # A tip rewritten away (gc'd) or malformed hides nothing: the walk only takes longer.
    assert [str(c.id) for c in pending_commits(repo.repo, head, [MISSING, "zz"])] == shas


def test_topological_shas_and_descent(tmp_path: Path) -> None:
    repo, shas = _line(tmp_path, 4)
    head = _commit(repo, shas[-1])
    assert topological_shas(repo.repo, head) == shas
    assert topological_shas(repo.repo, head, shas[1]) == shas[2:]
    assert descends(repo.repo, head, shas[0])
    assert not descends(repo.repo, _commit(repo, shas[0]), shas[-1])
    assert not descends(repo.repo, head, shas[-1])  # itself
    assert not descends(repo.repo, head, MISSING)  # gone after a rewrite
    assert not descends(repo.repo, head, "not-a-sha")


def test_commits_between_counts_up_to_one_past_the_limit(tmp_path: Path) -> None:
    repo, shas = _line(tmp_path, 6)
    head = _commit(repo, shas[-1])
    assert commits_between(repo.repo, head, shas[1], 10) == 4
    assert commits_between(repo.repo, head, shas[1], 2) == 3  # stops past the limit
    # Not a descendant (HEAD itself is none), or git cannot tell: no count.
    assert commits_between(repo.repo, head, shas[-1], 10) is None
    assert commits_between(repo.repo, _commit(repo, shas[0]), shas[-1], 10) is None
    assert commits_between(repo.repo, head, MISSING, 10) is None


def test_head_or_missing_names_the_object_head_lacks(tmp_path: Path) -> None:
    empty = FixtureRepo(tmp_path / "empty")
    assert head_or_missing(empty.repo) == (None, None)  # unborn: nothing is missing
    repo, shas = _line(tmp_path, 2)
    head, missing = head_or_missing(repo.repo)
    assert head is not None and str(head.id) == shas[-1] and missing is None
    # A branch naming an object the database does not hold: a damaged repository.
    (repo.path / ".git" / "refs" / "heads" / "main").write_text(MISSING + "\n")
    assert head_or_missing(pygit2.Repository(str(repo.path))) == (None, MISSING)


def test_peel_commit_is_none_for_what_is_no_commit(tmp_path: Path) -> None:
    repo, shas = _line(tmp_path, 1)
    blob = str(_commit(repo, shas[0]).tree["a.py"].id)
    assert peel_commit(repo.repo, shas[0]) is not None
    assert peel_commit(repo.repo, pygit2.Oid(hex=shas[0])) is not None
    assert peel_commit(repo.repo, MISSING) is None
    assert peel_commit(repo.repo, blob) is None


def test_the_git_dir_and_the_index_or_none(tmp_path: Path) -> None:
    repo, _ = _line(tmp_path, 1)
    found = git_dir_of(str(repo.path))
    assert found is not None and Path(found).resolve() == (repo.path / ".git").resolve()
    assert tracked_among(str(repo.path), ["b.py", "a.py", "c.py"]) == ("a.py",)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert git_dir_of(str(plain)) is None
    assert tracked_among(str(plain), ["a.py"]) is None
