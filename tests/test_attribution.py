"""Commit -> entity events (DESIGN §4), on real pygit2 repositories with pinned identities."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.gitfixture import BASE_TIME, FixtureRepo, Gitlink, Symlink
from warpline.git.attribution import DefinitionCache, commit_changes, worktree_changes
from warpline.git.events import CommitChanges
from warpline.git.repo import commits_in_range, open_repo, resolve_commit

FOUR = """\
import os

LIMIT = 10


def one():
    return 1


def two():
    return 2


def three():
    return 3


def four():
    return 4
"""

SHAPES = """\
class Shape:
    sides = 0

    def area(self):
        return 0

    def name(self):
        return "shape"


def helper():
    def inner():
        return 1
    return inner()
"""


def _changes(repo: FixtureRepo, sha: str, cache: DefinitionCache | None = None) -> CommitChanges:
    handle = open_repo(repo.path)
    return commit_changes(handle, resolve_commit(handle, sha), cache)


def _events(repo: FixtureRepo, sha: str) -> set[tuple[str, str]]:
    return {(c.locator, c.change_kind) for c in _changes(repo, sha).changes}


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


# -- edits inside one file -------------------------------------------------------------


def test_one_line_edit_in_one_of_four_functions_records_only_that_function(
    repo: FixtureRepo,
) -> None:
    repo.commit({"src/demo/calc.py": FOUR})
    sha = repo.commit({"src/demo/calc.py": FOUR.replace("return 3", "return 33")})
    assert _events(repo, sha) == {
        ("core:file:src/demo/calc.py", "modified"),
        ("python:function:demo.calc.three", "modified"),
    }


def test_an_import_or_constant_edit_marks_the_module(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    sha = repo.commit({"calc.py": FOUR.replace("import os", "import sys")})
    assert _events(repo, sha) == {
        ("core:file:calc.py", "modified"),
        ("python:module:calc", "modified"),
    }
    sha = repo.commit({"calc.py": FOUR.replace("import os", "import sys").replace("10", "11")})
    assert ("python:module:calc", "modified") in _events(repo, sha)


def test_a_method_edit_does_not_mark_its_class(repo: FixtureRepo) -> None:
    repo.commit({"shapes.py": SHAPES})
    sha = repo.commit({"shapes.py": SHAPES.replace("return 0", "return 1")})
    assert _events(repo, sha) == {
        ("core:file:shapes.py", "modified"),
        ("python:function:shapes.Shape.area", "modified"),
    }


def test_a_class_attribute_edit_marks_only_the_class(repo: FixtureRepo) -> None:
    repo.commit({"shapes.py": SHAPES})
    sha = repo.commit({"shapes.py": SHAPES.replace("sides = 0", "sides = 4")})
    assert _events(repo, sha) == {
        ("core:file:shapes.py", "modified"),
        ("python:class:shapes.Shape", "modified"),
    }


def test_a_nested_function_edit_marks_only_the_nested_function(repo: FixtureRepo) -> None:
    repo.commit({"shapes.py": SHAPES})
    sha = repo.commit({"shapes.py": SHAPES.replace("return 1", "return 2")})
    assert _events(repo, sha) == {
        ("core:file:shapes.py", "modified"),
        ("python:function:shapes.helper.<locals>.inner", "modified"),
    }


def test_inserting_a_function_between_two_others_marks_neither_neighbour(
    repo: FixtureRepo,
) -> None:
    repo.commit({"calc.py": FOUR})
    new = FOUR.replace("def three", "def between():\n    return 2.5\n\n\ndef three")
    sha = repo.commit({"calc.py": new})
    assert _events(repo, sha) == {
        ("core:file:calc.py", "modified"),
        ("python:function:calc.between", "added"),
    }


def test_appending_a_line_at_the_end_of_a_function_body_marks_that_function(
    repo: FixtureRepo,
) -> None:
    repo.commit({"calc.py": FOUR})
    sha = repo.commit({"calc.py": FOUR.replace("    return 2\n", "    return 2\n    print(2)\n")})
    assert _events(repo, sha) == {
        ("core:file:calc.py", "modified"),
        ("python:function:calc.two", "modified"),
    }


def test_a_trailing_comment_in_a_body_marks_that_function(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    sha = repo.commit({"calc.py": FOUR.replace("    return 2\n", "    return 2\n    # why\n")})
    assert ("python:function:calc.two", "modified") in _events(repo, sha)
    assert ("python:module:calc", "modified") not in _events(repo, sha)


def test_adding_a_decorator_marks_the_decorated_function(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    sha = repo.commit({"calc.py": FOUR.replace("def two", "@cache\ndef two")})
    assert _events(repo, sha) == {
        ("core:file:calc.py", "modified"),
        ("python:function:calc.two", "modified"),
    }


def test_async_and_block_definitions_are_attributed(repo: FixtureRepo) -> None:
    source = (
        "import sys\n\nif sys.platform:\n    async def fetch():\n        return 1\n"
        "\ntry:\n    import fast\nexcept ImportError:\n    def fast():\n        return 0\n"
    )
    repo.commit({"io.py": source})
    sha = repo.commit({"io.py": source.replace("return 1", "return 11")})
    assert _events(repo, sha) == {
        ("core:file:io.py", "modified"),
        ("python:function:io.fetch", "modified"),
    }
    sha = repo.commit(
        {"io.py": source.replace("return 1", "return 11").replace("return 0", "pass")}
    )
    assert ("python:function:io.fast", "modified") in _events(repo, sha)


def test_an_overload_signature_edit_marks_the_implementation(repo: FixtureRepo) -> None:
    source = (
        "from typing import overload\n\n\n@overload\ndef conv(x: int) -> int: ...\n"
        "def conv(x):\n    return x\n"
    )
    repo.commit({"conv.py": source})
    sha = repo.commit({"conv.py": source.replace("x: int) -> int", "x: float) -> float")})
    assert _events(repo, sha) == {
        ("core:file:conv.py", "modified"),
        ("python:function:conv.conv", "modified"),
    }


def test_a_renamed_function_is_one_move(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    sha = repo.commit({"calc.py": FOUR.replace("def two", "def deux")})
    changes = {c.locator: c for c in _changes(repo, sha).changes}
    assert {(loc, c.change_kind) for loc, c in changes.items()} == {
        ("core:file:calc.py", "modified"),
        ("python:function:calc.deux", "moved"),
    }
    deux = changes["python:function:calc.deux"]
    assert (deux.previous_locator, deux.previous_path, deux.also_modified) == (
        "python:function:calc.two", "calc.py", False)


def test_a_blank_line_only_edit_records_only_the_file(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    sha = repo.commit({"calc.py": FOUR.replace("\n\ndef three", "\n\n\ndef three")})
    assert _events(repo, sha) == {("core:file:calc.py", "modified")}


# -- whole files -----------------------------------------------------------------------


def test_the_root_commit_adds_every_definition_and_every_file(repo: FixtureRepo) -> None:
    sha = repo.commit({"src/demo/calc.py": FOUR, "README.md": "hi\n"})
    assert _events(repo, sha) == {
        ("core:file:README.md", "added"),
        ("core:file:src/demo/calc.py", "added"),
        ("python:module:demo.calc", "added"),
        *(("python:function:demo.calc." + n, "added") for n in ("one", "two", "three", "four")),
    }


def test_a_deleted_file_removes_every_definition(repo: FixtureRepo) -> None:
    repo.commit({"shapes.py": SHAPES, "keep.py": "K = 1\n"})
    sha = repo.commit({"shapes.py": None})
    changes = _changes(repo, sha).changes
    assert {c.change_kind for c in changes} == {"removed"}
    assert {c.locator for c in changes} == {
        "core:file:shapes.py",
        "python:module:shapes",
        "python:class:shapes.Shape",
        "python:function:shapes.Shape.area",
        "python:function:shapes.Shape.name",
        "python:function:shapes.helper",
        "python:function:shapes.helper.<locals>.inner",
    }
    assert {c.path for c in changes} == {"shapes.py"}


def test_a_renamed_file_moves_every_entity_with_its_previous_locator(repo: FixtureRepo) -> None:
    repo.commit({"src/demo/shapes.py": SHAPES})
    sha = repo.commit({}, renames={"src/demo/shapes.py": "src/demo/geometry.py"})
    changes = {c.locator: c for c in _changes(repo, sha).changes}
    assert {c.change_kind for c in changes.values()} == {"moved"}
    area = changes["python:function:demo.geometry.Shape.area"]
    assert area.previous_locator == "python:function:demo.shapes.Shape.area"
    assert (area.path, area.previous_path) == ("src/demo/geometry.py", "src/demo/shapes.py")
    moved_file = changes["core:file:src/demo/geometry.py"]
    assert moved_file.previous_locator == "core:file:src/demo/shapes.py"
    assert changes["python:module:demo.geometry"].previous_locator == "python:module:demo.shapes"
    assert len(changes) == 7


def test_a_renamed_and_edited_file_still_moves_each_entity_once(repo: FixtureRepo) -> None:
    repo.commit({"shapes.py": SHAPES})
    sha = repo.commit(
        {"geometry.py": SHAPES.replace("return 0", "return 1")},
        renames={"shapes.py": "geometry.py"},
    )
    changes = _changes(repo, sha).changes
    area = [c for c in changes if c.locator == "python:function:geometry.Shape.area"]
    assert [c.change_kind for c in area] == ["moved"]
    assert len({c.locator for c in changes}) == len(changes)


def test_a_rename_that_keeps_the_dotted_name_moves_every_entity_with_its_previous_path(
    repo: FixtureRepo,
) -> None:
    repo.commit({"src/demo/calc.py": FOUR})
    sha = repo.commit({}, renames={"src/demo/calc.py": "demo/calc.py"})
    changes = _changes(repo, sha).changes
    assert {(c.locator, c.change_kind, c.previous_path, c.also_modified) for c in changes} == {
        ("core:file:demo/calc.py", "moved", "src/demo/calc.py", False),
        ("python:module:demo.calc", "moved", "src/demo/calc.py", False),
        *((f"python:function:demo.calc.{n}", "moved", "src/demo/calc.py", False)
          for n in ("one", "two", "three", "four")),
    }
    # The locator did not change: the previous locator is the same one.
    assert all(c.previous_locator == c.locator for c in changes if c.kind != "file")


def test_an_edit_under_a_rename_that_keeps_the_dotted_name_is_a_move_also_modified(
    repo: FixtureRepo,
) -> None:
    repo.commit({"src/demo/calc.py": FOUR})
    sha = repo.commit(
        {"demo/calc.py": FOUR.replace("return 4", "return 44")},
        renames={"src/demo/calc.py": "demo/calc.py"},
    )
    changes = {c.locator: c for c in _changes(repo, sha).changes}
    four = changes["python:function:demo.calc.four"]
    assert (four.change_kind, four.path, four.previous_path, four.also_modified) == (
        "moved",
        "demo/calc.py",
        "src/demo/calc.py",
        True,
    )
    assert not changes["python:function:demo.calc.one"].also_modified
    assert changes["core:file:demo/calc.py"].also_modified
    assert {c.change_kind for c in changes.values()} == {"moved"}


def test_a_module_moved_into_a_package_is_one_modification(repo: FixtureRepo) -> None:
    repo.commit({"util.py": "def helper():\n    return 1\n"})
    sha = repo.commit(
        {
            "util.py": None,
            "util/__init__.py": "from os import path\n\n\ndef helper():\n    return 2\n",
        }
    )
    changes = {c.locator: c for c in _changes(repo, sha).changes}
    module = changes["python:module:util"]
    assert (module.change_kind, module.path, module.previous_path) == (
        "modified",
        "util/__init__.py",
        "util.py",
    )
    assert changes["python:function:util.helper"].change_kind == "modified"


def test_a_merge_deleting_a_file_both_parents_have_removes_its_entities(
    repo: FixtureRepo,
) -> None:
    _, ours, theirs = _diverged(repo)
    merge = repo.merge_commit(ours, theirs, {"calc.py": None})
    events = _events(repo, merge)
    assert ("core:file:calc.py", "removed") in events
    assert ("python:function:calc.two", "removed") in events


# -- files that are not Python entities ----------------------------------------------------


def test_a_file_no_language_row_reads_gets_a_file_event_only(repo: FixtureRepo) -> None:
    repo.commit({"native/app.c": "int a = 1;\n", "stubs/x.pyi": "def f() -> int: ...\n",
                 "web/app.js": "let a = 1;\n"})
    sha = repo.commit({"native/app.c": "int a = 2;\n", "stubs/x.pyi": "def f() -> str: ...\n",
                       "web/app.js": "let a = 2;\n"})
    assert _events(repo, sha) == {
        ("core:file:native/app.c", "modified"),
        ("core:file:stubs/x.pyi", "modified"),
        ("core:file:web/app.js", "modified"),
        ("ts:module:web/app", "modified"),  # JavaScript has a row (warpline/lang/)
    }


def test_a_binary_file_gets_a_file_event_only(repo: FixtureRepo) -> None:
    repo.commit({"logo.png": b"\x89PNG\x00\x01"})
    sha = repo.commit({"logo.png": b"\x89PNG\x00\x02"})
    assert _events(repo, sha) == {("core:file:logo.png", "modified")}


def test_a_submodule_pointer_change_gets_a_file_event_only(repo: FixtureRepo) -> None:
    repo.commit({"vendor/lib": Gitlink("1" * 40), "a.py": "A = 1\n"})
    sha = repo.commit({"vendor/lib": Gitlink("2" * 40)})
    changes = _changes(repo, sha)
    assert _events(repo, sha) == {("core:file:vendor/lib", "modified")}
    assert changes.unparsed_files == ()


def test_a_python_named_symlink_gets_a_file_event_only(repo: FixtureRepo) -> None:
    sha = repo.commit({"alias.py": Symlink("real.py"), "real.py": "R = 1\n"})
    assert ("core:file:alias.py", "added") in _events(repo, sha)
    assert not any(loc.startswith("python:module:alias") for loc, _ in _events(repo, sha))


def test_unparsable_python_gets_its_file_event_and_is_listed(repo: FixtureRepo) -> None:
    repo.commit({"ok.py": FOUR})
    sha = repo.commit({"broken.py": "def oops(:\n", "ok.py": FOUR.replace("return 1", "return 0")})
    changes = _changes(repo, sha)
    assert changes.unparsed_files == ("broken.py",)
    assert ("core:file:broken.py", "added") in {(c.locator, c.change_kind) for c in changes.changes}
    assert ("python:function:ok.one", "modified") in {
        (c.locator, c.change_kind) for c in changes.changes
    }
    fixed = repo.commit({"broken.py": "def oops():\n    pass\n"})
    assert _changes(repo, fixed).unparsed_files == ("broken.py",)  # its old side did not parse


# -- merges ----------------------------------------------------------------------------


def _diverged(repo: FixtureRepo) -> tuple[str, str, str]:
    """A base with FOUR; ours edits `one`, theirs edits `four` (same file) and adds a doc."""
    base = repo.commit({"calc.py": FOUR, "NOTES.md": "a\nb\nc\nd\ne\n"})
    ours = repo.commit(
        {"calc.py": FOUR.replace("return 1", "return 10"), "NOTES.md": "A\nb\nc\nd\ne\n"}
    )
    theirs = repo.commit(
        {"calc.py": FOUR.replace("return 4", "return 40"), "NOTES.md": "a\nb\nc\nd\nE\n"},
        parents=[base],
        update_head=False,
    )
    return base, ours, theirs


def test_a_clean_merge_introduces_nothing(repo: FixtureRepo) -> None:
    _, ours, theirs = _diverged(repo)
    both = FOUR.replace("return 1", "return 10").replace("return 4", "return 40")
    merge = repo.merge_commit(ours, theirs, {"calc.py": both, "NOTES.md": "A\nb\nc\nd\nE\n"})
    changes = _changes(repo, merge)
    assert changes.changes == ()
    assert changes.commit.parents == (ours, theirs)


def test_a_merge_records_only_its_conflict_resolution(repo: FixtureRepo) -> None:
    base = repo.commit({"calc.py": FOUR, "NOTES.md": "x\n"})
    ours = repo.commit(
        {"calc.py": FOUR.replace("return 2", "return 20").replace("return 1", "return 10")}
    )
    theirs = repo.commit(
        {"calc.py": FOUR.replace("return 2", "return 21").replace("return 4", "return 40")},
        parents=[base],
        update_head=False,
    )
    resolved = FOUR.replace("return 2", "return 2021").replace("return 1", "return 10")
    merge = repo.merge_commit(ours, theirs, {"calc.py": resolved.replace("return 4", "return 40")})
    assert _events(repo, merge) == {
        ("core:file:calc.py", "modified"),
        ("python:function:calc.two", "modified"),
    }


def test_a_merge_conflict_in_a_plain_file_records_the_file(repo: FixtureRepo) -> None:
    _, ours, theirs = _diverged(repo)
    both = FOUR.replace("return 1", "return 10").replace("return 4", "return 40")
    merge = repo.merge_commit(ours, theirs, {"calc.py": both, "NOTES.md": "A\nb\nc\nd\nEE\n"})
    assert _events(repo, merge) == {("core:file:NOTES.md", "modified")}


def test_a_merge_taking_one_side_whole_introduces_nothing(repo: FixtureRepo) -> None:
    _, ours, theirs = _diverged(repo)
    merge = repo.merge_commit(ours, theirs, {"calc.py": FOUR.replace("return 4", "return 40")})
    assert _changes(repo, merge).changes == ()


def test_an_evil_merge_adding_a_function_records_it(repo: FixtureRepo) -> None:
    _, ours, theirs = _diverged(repo)
    evil = FOUR.replace("return 1", "return 10") + "\n\ndef five():\n    return 5\n"
    merge = repo.merge_commit(ours, theirs, {"calc.py": evil})
    assert _events(repo, merge) == {
        ("core:file:calc.py", "modified"),
        ("python:function:calc.five", "added"),
    }


# -- commit facts, order, cache --------------------------------------------------------------


def test_commit_info_carries_author_utc_times_and_parents(repo: FixtureRepo) -> None:
    first = repo.commit({"a.py": "A = 1\n"})
    second = repo.commit(
        {"a.py": "A = 2\n"}, author=("Bob", "bob@example.com"), when=BASE_TIME + 999
    )
    info = _changes(repo, second).commit
    assert (info.sha, info.parents) == (second, (first,))
    assert (info.author_name, info.author_email) == ("Bob", "bob@example.com")
    assert info.authored_at == info.committed_at == BASE_TIME + 999
    assert _changes(repo, first).commit.parents == ()


def test_changes_are_sorted_by_locator_then_change_kind(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR, "shapes.py": SHAPES})
    sha = repo.commit(
        {"calc.py": FOUR.replace("def two", "def deux"), "zz.txt": "z\n", "shapes.py": None}
    )
    changes = _changes(repo, sha).changes
    assert list(changes) == sorted(changes, key=lambda c: (c.locator, c.change_kind))


def test_a_shared_cache_gives_the_same_answers_and_is_reused(repo: FixtureRepo) -> None:
    for n in range(6):
        repo.commit(
            {"calc.py": FOUR.replace("return 3", f"return {n}"), "shapes.py": SHAPES * (n % 2 + 1)}
        )
    handle = open_repo(repo.path)
    commits = commits_in_range(handle, None, resolve_commit(handle, "HEAD"))
    cache = DefinitionCache()
    shared = [commit_changes(handle, c, cache) for c in commits]
    assert shared == [commit_changes(handle, c) for c in commits]
    assert cache.hits > 0


# -- the work tree ---------------------------------------------------------------------------


def test_worktree_changes_cover_unstaged_staged_and_untracked_files(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR, "shapes.py": SHAPES, "gone.py": "G = 1\n"})
    repo.write_worktree("calc.py", FOUR.replace("return 2", "return 22"))
    repo.write_worktree("shapes.py", SHAPES.replace("sides = 0", "sides = 3"))
    repo.stage("shapes.py")
    repo.write_worktree("fresh.py", "def new():\n    pass\n")
    repo.delete_worktree("gone.py")
    repo.write_worktree(".weft/warpline/warpline.db", b"\x00state")
    events = {(c.locator, c.change_kind) for c in worktree_changes(open_repo(repo.path))}
    assert events == {
        ("core:file:calc.py", "modified"),
        ("python:function:calc.two", "modified"),
        ("core:file:shapes.py", "modified"),
        ("python:class:shapes.Shape", "modified"),
        ("core:file:fresh.py", "added"),
        ("python:module:fresh", "added"),
        ("python:function:fresh.new", "added"),
        ("core:file:gone.py", "removed"),
        ("python:module:gone", "removed"),
    }


def test_worktree_changes_write_nothing(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    repo.write_worktree("calc.py", FOUR.replace("return 2", "return 22"))
    repo.write_worktree("fresh.py", "X = 1\n")
    git_dir = repo.path / ".git"
    before = sorted((p, p.stat().st_mtime_ns, p.stat().st_size) for p in git_dir.rglob("*"))
    assert worktree_changes(open_repo(repo.path))
    after = sorted((p, p.stat().st_mtime_ns, p.stat().st_size) for p in git_dir.rglob("*"))
    assert before == after


def test_a_staged_then_reverted_edit_is_no_worktree_change(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    repo.write_worktree("calc.py", FOUR.replace("return 2", "return 22"))
    repo.stage("calc.py")
    repo.write_worktree("calc.py", FOUR)
    assert worktree_changes(open_repo(repo.path)) == ()


def test_worktree_changes_in_an_empty_repository_are_all_additions(repo: FixtureRepo) -> None:
    repo.write_worktree("first.py", "def start():\n    pass\n")
    events = {(c.locator, c.change_kind) for c in worktree_changes(open_repo(repo.path))}
    assert events == {
        ("core:file:first.py", "added"),
        ("python:module:first", "added"),
        ("python:function:first.start", "added"),
    }


def test_an_unparsable_worktree_file_gets_its_file_event_only(repo: FixtureRepo) -> None:
    repo.commit({"calc.py": FOUR})
    repo.write_worktree("calc.py", "def broken(:\n")
    assert {(c.locator, c.change_kind) for c in worktree_changes(open_repo(repo.path))} == {
        ("core:file:calc.py", "modified")
    }


# -- properties ------------------------------------------------------------------------------


def _module(n: int) -> str:
    return "import os\n" + "".join(
        f"\n\ndef f{i}(x):\n    y = x + {i}\n    return y\n" for i in range(n)
    )


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_editing_one_random_function_of_n_changes_exactly_that_one(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    n = data.draw(st.integers(min_value=1, max_value=12), label="functions")
    target = data.draw(st.integers(min_value=0, max_value=n - 1), label="target")
    which = data.draw(st.sampled_from(["header", "body", "return", "append"]), label="edit")
    repo = FixtureRepo(tmp_path_factory.mktemp("prop") / "repo")
    source = _module(n)
    repo.commit({"pkg/mod.py": source})
    lines = source.split("\n")
    at = lines.index(f"def f{target}(x):")
    if which == "header":
        lines[at] = f"def f{target}(x, extra=None):"
    elif which == "body":
        lines[at + 1] = f"    y = x * {target}"
    elif which == "return":
        lines[at + 2] = "    return -y"
    else:
        lines.insert(at + 3, "    print(y)")
    sha = repo.commit({"pkg/mod.py": "\n".join(lines)})
    assert _events(repo, sha) == {
        ("core:file:pkg/mod.py", "modified"),
        (f"python:function:pkg.mod.f{target}", "modified"),
    }
