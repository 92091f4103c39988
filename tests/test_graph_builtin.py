"""The built-in edge source on a fixture repository whose call graph is written out by hand."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FileValue, FixtureRepo, Symlink
from warpline.graph.builtin import EXTRACTORS, capture_builtin, reads, source_blobs
from warpline.graph.model import EdgeCapture

F = "python:function:"
C = "python:class:"
M = "python:module:"

UTIL = """\
import os


def ping(n):
    if n:
        return pong(n - 1)
    return os.path.join("a", "b")


def pong(n):
    return ping(n)


def register(callback):
    return callback


def audited(func):
    return func
"""

AUTH = """\
from . import util
from .util import audited, register as reg
from .store import Store


class Base:
    def check(self, name):
        return util.ping(len(name))


class User(Base):
    def __init__(self, name):
        self.name = name

    def greet(self):
        return self.check(self.name)


class Admin(User):
    def greet(self):
        return super().greet() + "!"


@audited
def login(name):
    user = User(name)
    store = Store()
    store.save(user)
    return user.greet()


def on_event(event):
    return event


def outer():
    def inner():
        return login("x")

    return inner()


def run():
    return None


def unknown_calls(thing):
    thing.run()
    return mystery()


reg(on_event)
HANDLERS = [login]
"""

STORE = """\
class Store:
    def save(self, obj):
        self._write(obj)

    def _write(self, obj):
        return obj
"""

TESTS = """\
from demo.auth import Admin, login


def test_login():
    assert login("bob")


class TestAdmin:
    def test_greet(self):
        admin = Admin("root")
        assert admin.greet() == "root!"
"""

FILES: dict[str, FileValue] = {
    "src/demo/__init__.py": "from demo.auth import login as login\n",
    "src/demo/util.py": UTIL,
    "src/demo/auth.py": AUTH,
    "src/demo/store.py": STORE,
    "src/demo/broken.py": "def broken(:\n    pass\n",
    "tests/test_auth.py": TESTS,
    "README.md": "not python\n",
}

EXPECTED_EDGES = {
    # the cycle
    (F + "demo.util.ping", F + "demo.util.pong", "calls"),
    (F + "demo.util.pong", F + "demo.util.ping", "calls"),
    # module attribute through `from . import util`
    (F + "demo.auth.Base.check", F + "demo.util.ping", "calls"),
    # self.method() found on a base class; super() goes to the base
    (F + "demo.auth.User.greet", F + "demo.auth.Base.check", "calls"),
    (F + "demo.auth.Admin.greet", F + "demo.auth.User.greet", "calls"),
    # constructor calls reach the class and its __init__; locals built from a class
    (F + "demo.auth.login", C + "demo.auth.User", "calls"),
    (F + "demo.auth.login", F + "demo.auth.User.__init__", "calls"),
    (F + "demo.auth.login", C + "demo.store.Store", "calls"),
    (F + "demo.auth.login", F + "demo.store.Store.save", "calls"),
    (F + "demo.auth.login", F + "demo.auth.User.greet", "calls"),
    # nested function and closure lookup
    (F + "demo.auth.outer", F + "demo.auth.outer.<locals>.inner", "calls"),
    (F + "demo.auth.outer.<locals>.inner", F + "demo.auth.login", "calls"),
    # module-level code calls through `from .util import register as reg`
    (M + "demo.auth", F + "demo.util.register", "calls"),
    (F + "demo.store.Store.save", F + "demo.store.Store._write", "calls"),
    # tests/ calling production code (src/ layout, inherited __init__)
    (F + "tests.test_auth.test_login", F + "demo.auth.login", "calls"),
    (F + "tests.test_auth.TestAdmin.test_greet", C + "demo.auth.Admin", "calls"),
    (F + "tests.test_auth.TestAdmin.test_greet", F + "demo.auth.User.__init__", "calls"),
    (F + "tests.test_auth.TestAdmin.test_greet", F + "demo.auth.Admin.greet", "calls"),
    # references: base classes, a decorator, a callback, a module-level reference
    (C + "demo.auth.User", C + "demo.auth.Base", "references"),
    (C + "demo.auth.Admin", C + "demo.auth.User", "references"),
    (F + "demo.auth.login", F + "demo.util.audited", "references"),
    (M + "demo.auth", F + "demo.auth.on_event", "references"),
    (M + "demo.auth", F + "demo.auth.login", "references"),
}


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> tuple[FixtureRepo, str]:
    repo = FixtureRepo(tmp_path_factory.mktemp("builtin") / "repo")
    first = repo.commit(FILES, "init")
    # A later commit renames login everywhere: the capture of `first` must not see it.
    repo.commit(
        {
            "src/demo/auth.py": AUTH.replace("login", "sign_in"),
            "tests/test_auth.py": TESTS.replace("login", "sign_in"),
        },
        "rename",
    )
    return repo, first


def _capture(fixture: tuple[FixtureRepo, str]) -> EdgeCapture:
    repo, sha = fixture
    return capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))


def _edges(capture: EdgeCapture) -> set[tuple[str, str, str]]:
    return {(e.source_locator, e.target_locator, e.kind) for e in capture.edges}


def test_builtin_capture_finds_exactly_the_hand_written_edges(
    fixture: tuple[FixtureRepo, str],
) -> None:
    capture = _capture(fixture)
    assert _edges(capture) == EXPECTED_EDGES
    assert capture.source == "builtin"
    assert {e.confidence for e in capture.edges} == {"resolved"}


def test_unresolvable_calls_are_counted_and_never_become_edges(
    fixture: tuple[FixtureRepo, str],
) -> None:
    capture = _capture(fixture)
    # `thing.run()` (a parameter) and `mystery()` (defined nowhere); builtins (`len`) and
    # outside modules (`os.path.join`) are neither edges nor unresolved.
    assert capture.unresolved == 2
    assert not any(e.source_locator == F + "demo.auth.unknown_calls" for e in capture.edges)


def test_entities_follow_the_locator_dialect_with_line_spans(
    fixture: tuple[FixtureRepo, str],
) -> None:
    entities = {e.locator: e for e in _capture(fixture).entities}
    assert entities[M + "demo"].path == "src/demo/__init__.py"
    assert entities[M + "tests.test_auth"].kind == "module"
    assert entities["core:file:src/demo/auth.py"].kind == "file"
    assert "core:file:README.md" not in entities
    login = entities[F + "demo.auth.login"]
    # A definition starts at its decorator line.
    assert (login.kind, login.start_line, login.end_line) == ("function", 24, 29)
    assert entities[C + "demo.auth.Admin"].kind == "class"
    assert F + "demo.auth.outer.<locals>.inner" in entities
    assert F + "tests.test_auth.TestAdmin.test_greet" in entities
    assert all(e.sei is None for e in entities.values())


def test_a_file_that_does_not_parse_is_a_failed_entity(fixture: tuple[FixtureRepo, str]) -> None:
    capture = _capture(fixture)
    assert capture.failed_entities == ((M + "demo.broken", "syntax_error"),)
    assert M + "demo.broken" in {e.locator for e in capture.entities}


def test_capture_reads_the_commit_not_the_work_tree_or_head(
    fixture: tuple[FixtureRepo, str],
) -> None:
    repo, _ = fixture
    # The work tree (at HEAD) says sign_in, plus an uncommitted file.
    assert "sign_in" in (Path(repo.path) / "src/demo/auth.py").read_text()
    repo.write_worktree("src/demo/extra.py", "from demo.auth import login\nlogin('x')\n")
    locators = {e.locator for e in _capture(fixture).entities}
    assert F + "demo.auth.login" in locators
    assert F + "demo.auth.sign_in" not in locators
    assert M + "demo.extra" not in locators
    head = capture_builtin(repo.repo, repo.repo.head.peel(pygit2.Commit))
    assert (F + "tests.test_auth.test_sign_in", F + "demo.auth.sign_in", "calls") in _edges(head)


def test_capture_is_deterministic_and_sorted(fixture: tuple[FixtureRepo, str]) -> None:
    first, second = _capture(fixture), _capture(fixture)
    assert first == second
    keys = [(e.source_locator, e.target_locator, e.kind) for e in first.edges]
    assert keys == sorted(keys)
    assert [e.locator for e in first.entities] == sorted(e.locator for e in first.entities)


def test_overloads_reexports_and_star_imports_resolve(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    sha = repo.commit(
        {
            "pkg/__init__.py": "from pkg.core import *\n",
            "pkg/core.py": (
                "from typing import overload\n\n\n"
                "@overload\ndef parse(x: int) -> int: ...\n"
                "@overload\ndef parse(x: str) -> str: ...\n"
                "def parse(x):\n    return x\n"
            ),
            "app.py": (
                "import pkg\nimport pkg.core as core\nfrom pkg import parse as p\n\n\n"
                "def main():\n    pkg.parse(1)\n    core.parse(2)\n    return p(3)\n"
            ),
        }
    )
    capture = capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))
    functions = [e.locator for e in capture.entities if e.kind == "function"]
    assert functions == [F + "app.main", F + "pkg.core.parse"]  # one parse, no stubs
    assert _edges(capture) == {(F + "app.main", F + "pkg.core.parse", "calls")}
    assert capture.unresolved == 0


def test_absurdly_nested_code_is_a_failed_entity_not_a_crash(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    deep = "def f():\n    return " + " + ".join(["g()"] * 1500) + "\n\n\ndef g():\n    return 1\n"
    sha = repo.commit({"deep.py": deep, "fine.py": "from deep import g\n\n\ndef h():\n    g()\n"})
    capture = capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))
    assert (F + "deep.f", "too_complex") in capture.failed_entities
    assert (F + "fine.h", F + "deep.g", "calls") in _edges(capture)


def test_two_paths_claiming_one_module_name_are_reported(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    sha = repo.commit({"a.py": "def f():\n    pass\n", "src/a.py": "def g():\n    pass\n"})
    capture = capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))
    assert capture.failed_entities == (("core:file:src/a.py", "duplicate_module_name"),)
    assert F + "a.f" in {e.locator for e in capture.entities}
    assert F + "a.g" not in {e.locator for e in capture.entities}


def test_files_go_to_their_language_s_extractor_by_the_table(tmp_path: Path) -> None:
    # Each language's files go to its extractor; a file no row reads and a symlink are in
    # no capture.
    assert {"python", "go", "typescript", "tsx", "javascript", "java", "rust"} <= set(EXTRACTORS)
    assert reads("pkg/mod.py") and reads("src/A.java") and reads("src/lib.rs") \
        and not reads("stubs.pyi")
    repo = FixtureRepo(tmp_path / "repo")
    sha = repo.commit({"b.py": "def f():\n    pass\n", "a.py": "x = 1\n",
                       "src/lib.rs": "fn main() {}\n", "README.md": "# r\n",
                       "link.py": Symlink("a.py")})
    commit = repo.repo[sha].peel(pygit2.Commit)
    blobs = source_blobs(commit)
    assert sorted(blobs) == ["python", "rust"]
    assert [path for path, _ in blobs["python"]] == ["a.py", "b.py"]  # sorted by path
    files = {e.path for e in capture_builtin(repo.repo, commit).entities}
    assert files == {"a.py", "b.py", "src/lib.rs"}
