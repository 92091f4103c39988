"""What counts as a change, where the diff's bytes and the definition's text disagree
(docs/lineage.md, "What counts as a change"): line-ending conversions, a definition cut
and pasted unchanged within its file, merges judged line by line where the re-merge
conflicted, and a merge carrying a branch's edit across a move the other branch made.
Each case was first met in pip's history; the fixtures are real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from warpline.git.attribution import commit_changes
from warpline.git.repo import resolve_commit

UTIL = '''\
import posixpath


def splitext(path):
    """Like os.path.splitext, but take off .tar too"""
    base, ext = posixpath.splitext(path)
    if base.lower().endswith(".tar"):
        ext = base[-4:] + ext
        base = base[:-4]
    return base, ext


def display_path(path):
    return path.replace("/home/", "~")


def is_url(name):
    return ":" in name


def backup_dir(dir, ext=".bak"):
    n = 1
    while True:
        candidate = dir + ext
        if not candidate:
            return dir
        n += 1
'''


def _events(repo: FixtureRepo, sha: str) -> set[tuple[str, str]]:
    commit = resolve_commit(repo.repo, sha)
    return {(c.locator, c.change_kind) for c in commit_changes(repo.repo, commit).changes}


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def _block(text: str, name: str) -> str:
    """The top-level definition ``name`` of ``text`` with the two blank lines after it."""
    start = text.index(f"def {name}(")
    end = text.find("\n\n\ndef ", start)
    return text[start:] if end < 0 else text[start:end + 3]


# -- line endings ---------------------------------------------------------------------------


def test_a_conversion_to_crlf_changes_the_file_but_no_definition(repo: FixtureRepo) -> None:
    repo.commit({"util.py": UTIL})
    to_crlf = repo.commit({"util.py": UTIL.replace("\n", "\r\n").encode()})
    assert _events(repo, to_crlf) == {("core:file:util.py", "modified")}
    back = repo.commit({"util.py": UTIL})
    assert _events(repo, back) == {("core:file:util.py", "modified")}


def test_an_edit_inside_a_crlf_conversion_is_still_found(repo: FixtureRepo) -> None:
    repo.commit({"util.py": UTIL})
    edited = UTIL.replace('return ":" in name', 'return "://" in name')
    sha = repo.commit({"util.py": edited.replace("\n", "\r\n").encode()})
    assert _events(repo, sha) == {("core:file:util.py", "modified"),
                                  ("python:function:util.is_url", "modified")}


def test_an_edit_of_a_crlf_file_is_attributed_as_in_an_lf_one(repo: FixtureRepo) -> None:
    repo.commit({"util.py": UTIL.replace("\n", "\r\n").encode()})
    edited = UTIL.replace("n += 1", "n += 2").replace("\n", "\r\n").encode()
    assert _events(repo, repo.commit({"util.py": edited})) == {
        ("core:file:util.py", "modified"), ("python:function:util.backup_dir", "modified")}


# -- a definition relocated within its file ----------------------------------------------


def test_a_definition_moved_unchanged_within_its_file_is_not_modified(
    repo: FixtureRepo,
) -> None:
    repo.commit({"util.py": UTIL})
    block = _block(UTIL, "splitext")
    moved = UTIL.replace(block, "") + "\n\n" + block.rstrip("\n") + "\n"
    sha = repo.commit({"util.py": moved})
    assert _events(repo, sha) == {("core:file:util.py", "modified")}


def test_a_definition_moved_within_its_file_and_edited_is_modified(repo: FixtureRepo) -> None:
    repo.commit({"util.py": UTIL})
    block = _block(UTIL, "splitext")
    edited = block.replace('".tar"', '".tar.gz"')
    sha = repo.commit({"util.py": UTIL.replace(block, "") + "\n\n" + edited.rstrip("\n") + "\n"})
    assert ("python:function:util.splitext", "modified") in _events(repo, sha)


def test_a_statement_moved_within_a_definition_is_still_modified(repo: FixtureRepo) -> None:
    repo.commit({"util.py": UTIL})
    swapped = UTIL.replace("        ext = base[-4:] + ext\n        base = base[:-4]\n",
                           "        base = base[:-4]\n        ext = base[-4:] + ext\n")
    assert ("python:function:util.splitext", "modified") in _events(
        repo, repo.commit({"util.py": swapped}))


def test_two_definitions_swapped_are_neither_modified(repo: FixtureRepo) -> None:
    repo.commit({"util.py": UTIL})
    first, second = _block(UTIL, "display_path"), _block(UTIL, "is_url")
    swapped = UTIL.replace(first + second, second + first)
    assert swapped != UTIL
    assert _events(repo, repo.commit({"util.py": swapped})) == {
        ("core:file:util.py", "modified")}


# -- merges: line by line where the re-merge conflicted -------------------------------------


def _conflicted_elsewhere(repo: FixtureRepo) -> tuple[str, str, str]:
    """Both branches edit ``backup_dir`` (a conflict); ours and theirs edit different
    lines of ``splitext``, which merges cleanly."""
    base = repo.commit({"util.py": UTIL})
    ours = repo.commit({"util.py": UTIL.replace('".tar"', '".tar2"')
                        .replace("n += 1", "n += 10")})
    theirs = repo.commit({"util.py": UTIL.replace("return base, ext", "return (base, ext)")
                          .replace("n += 1", "n += 20")}, parents=[base], update_head=False)
    return base, ours, theirs


def test_a_merge_conflicted_elsewhere_does_not_claim_a_cleanly_merged_function(
    repo: FixtureRepo,
) -> None:
    _, ours, theirs = _conflicted_elsewhere(repo)
    both = (UTIL.replace('".tar"', '".tar2"').replace("return base, ext", "return (base, ext)"))
    merge = repo.merge_commit(ours, theirs, {"util.py": both.replace("n += 1", "n += 30")})
    assert _events(repo, merge) == {("core:file:util.py", "modified"),
                                    ("python:function:util.backup_dir", "modified")}


def test_a_merge_taking_a_side_of_its_conflict_introduces_nothing(repo: FixtureRepo) -> None:
    _, ours, theirs = _conflicted_elsewhere(repo)
    both = (UTIL.replace('".tar"', '".tar2"').replace("return base, ext", "return (base, ext)"))
    merge = repo.merge_commit(ours, theirs, {"util.py": both.replace("n += 1", "n += 10")})
    assert _events(repo, merge) == set()


def test_an_evil_line_in_a_cleanly_merged_function_beside_a_conflict_counts(
    repo: FixtureRepo,
) -> None:
    _, ours, theirs = _conflicted_elsewhere(repo)
    both = (UTIL.replace('".tar"', '".tar2"').replace("return base, ext", "return (base, ext)")
            .replace("    base, ext = posixpath",
                     "    path = str(path)\n    base, ext = posixpath"))
    merge = repo.merge_commit(ours, theirs, {"util.py": both.replace("n += 1", "n += 10")})
    assert _events(repo, merge) == {("core:file:util.py", "modified"),
                                    ("python:function:util.splitext", "modified")}


# -- merges: a branch's edit carried across the other branch's move --------------------------


HELPERS = "".join(f"\n\ndef helper_{i}(x):\n    return x * {i} + {i * i}\n" for i in range(30))


def _split_on_main_edited_on_branch(repo: FixtureRepo) -> tuple[str, str, str]:
    """main splits a large ``util.py`` into modules of ``pkg/`` (none similar enough for
    libgit2 to pair as a rename, so the re-merge cannot follow: pip's ``req.py`` split);
    the maintenance branch edits ``splitext`` in ``util.py``."""
    large = UTIL + HELPERS
    base = repo.commit({"util.py": large})
    paths = _block(UTIL, "splitext")
    ours = repo.commit({"util.py": None, "pkg/__init__.py": "",
                        "pkg/paths.py": "import posixpath\n\n\n" + paths,
                        "pkg/names.py": _block(UTIL, "display_path") + _block(UTIL, "is_url"),
                        "pkg/dirs.py": _block(UTIL, "backup_dir"),
                        "pkg/helpers.py": HELPERS.replace("* ", "*  ")})
    theirs = repo.commit({"util.py": large.replace('".tar"', '".tar.xz"')}, parents=[base],
                         update_head=False)
    return ours, theirs, paths


def test_a_merge_porting_a_branch_edit_across_a_move_is_not_the_merges_change(
    repo: FixtureRepo,
) -> None:
    ours, theirs, paths = _split_on_main_edited_on_branch(repo)
    ported = "import posixpath\n\n\n" + paths.replace('".tar"', '".tar.xz"')
    merge = repo.merge_commit(ours, theirs, {"pkg/paths.py": ported})
    assert _events(repo, merge) == set()


def test_a_merge_editing_the_moved_definition_its_own_way_counts(repo: FixtureRepo) -> None:
    ours, theirs, paths = _split_on_main_edited_on_branch(repo)
    resolved = "import posixpath\n\n\n" + paths.replace('".tar"', '".tar.bz2"')
    merge = repo.merge_commit(ours, theirs, {"pkg/paths.py": resolved})
    assert _events(repo, merge) == {("core:file:pkg/paths.py", "modified"),
                                    ("python:function:pkg.paths.splitext", "modified")}
