"""The selection benchmark's truth harness and scoring, on a small real project.

A real pytest run under real coverage.py with per-test contexts (``--cov-context=test``)
over a project whose tests reach code the way a static graph cannot see (a registry of
callbacks called by a dispatcher, a fixture injected by name, a property, a constructor):
the harness must attribute every function to exactly the tests that executed it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import _coverage_truth as truth_mod
import _selection_eval as evaluate

pytest.importorskip("pytest_cov")

APP = '''\
"""A tiny app with framework-style dispatch."""

from typing import overload

HANDLERS = {}


@overload
def pick(x: int) -> int: ...
@overload
def pick(
    x: str,
) -> str: ...
def pick(x):
    return x


def stub(): return 1


def route(name):
    def register(func):
        HANDLERS[name] = func
        return func
    return register


@route("hello")
def hello(who):
    """Greets."""
    return f"hello {who}"


@route("bye")
def bye(who):
    return f"bye {who}"


def dispatch(name, who):
    return HANDLERS[name](who)


class Box:
    def __init__(self, size):
        self.size = size

    @property
    def doubled(self):
        """Twice the size."""
        return self.size * 2

    @doubled.setter
    def doubled(self, value):
        self.size = value // 2

    def never(self):
        return None

    def outer(self):
        def inner():
            return 1
        return inner()
'''

TESTS = '''\
import pytest

from app import Box, dispatch


@pytest.fixture
def box():
    return Box(3)


def test_hello():
    assert dispatch("hello", "x") == "hello x"


def test_bye():
    assert dispatch("bye", "x") == "bye x"


def test_doubled(box):
    assert box.doubled == 6


def test_set_doubled(box):
    box.doubled = 10


@pytest.mark.parametrize("n", [1, 2])
def test_outer(n):
    assert Box(n).outer() == 1


class TestGroup:
    def test_nothing(self):
        assert True
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("truth")
    (root / "src" / "app").mkdir(parents=True)
    (root / "src" / "app" / "__init__.py").write_text(APP)
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text(TESTS)
    env = {"PYTHONPATH": str(root / "src"), "COVERAGE_FILE": str(root / ".coverage"),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--cov=app", "--cov-context=test", "--cov-report=", "tests"],
                          cwd=root, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def test_functions_have_loomweave_locators_and_own_lines(project: Path) -> None:
    found = {f.locator: f for f in truth_mod.functions(project, "src/app")}
    assert set(found) == {f"python:function:app.{q}" for q in (
        "pick", "route", "route.<locals>.register", "hello", "bye", "dispatch", "Box.__init__",
        "Box.doubled", "Box.never", "Box.outer", "Box.outer.<locals>.inner")}
    source = (project / "src/app/__init__.py").read_text().splitlines()
    outer = found["python:function:app.Box.outer"]
    inner = found["python:function:app.Box.outer.<locals>.inner"]
    assert not outer.lines & inner.lines  # the nested function's lines are its own
    assert [source[n - 1].strip() for n in sorted(outer.lines)] == ["return inner()"]
    # overload stubs are no entity; the implementation's body is pick's only line
    assert [source[n - 1].strip() for n in sorted(found["python:function:app.pick"].lines)] == [
        "return x"]
    # a property's getter and setter are one entity
    doubled = found["python:function:app.Box.doubled"]
    assert {source[n - 1].strip() for n in doubled.lines} >= {"return self.size * 2",
                                                              "self.size = value // 2"}


def test_truth_is_the_tests_that_executed_each_function(project: Path) -> None:
    per_line = truth_mod.per_line_tests(project / ".coverage", project)
    found = {f.locator.rsplit(".", 1)[-1]: f for f in truth_mod.functions(project, "src/app")}
    t = "tests/test_app.py::"
    assert truth_mod.truth(found["hello"], per_line) == {t + "test_hello"}
    assert truth_mod.truth(found["bye"], per_line) == {t + "test_bye"}
    assert truth_mod.truth(found["dispatch"], per_line) == {t + "test_hello", t + "test_bye"}
    assert truth_mod.truth(found["doubled"], per_line) == {t + "test_doubled",
                                                           t + "test_set_doubled"}
    # The fixture's constructor call runs in the test's setup: it counts for the test.
    assert truth_mod.truth(found["__init__"], per_line) == {
        t + "test_doubled", t + "test_set_doubled", t + "test_outer[1]", t + "test_outer[2]"}
    assert truth_mod.truth(found["inner"], per_line) == {t + "test_outer[1]",
                                                         t + "test_outer[2]"}
    # Registration runs at import, in no test: no test executed `register`'s body.
    assert truth_mod.truth(found["register"], per_line) == set()
    assert truth_mod.truth(found["never"], per_line) == set()


def test_the_edit_is_one_statement_after_the_docstring_and_changes_nothing_else(
        project: Path, tmp_path: Path) -> None:
    copy = tmp_path / "src" / "app"
    copy.mkdir(parents=True)
    (copy / "__init__.py").write_text(APP)
    for function in truth_mod.functions(tmp_path, "src/app"):
        (copy / "__init__.py").write_text(APP)
        truth_mod.insert_edit(tmp_path, function)
        edited = (copy / "__init__.py").read_text()
        tree = ast.parse(edited)  # still valid Python
        added = [line for line in edited.splitlines() if truth_mod.EDIT_LINE in line]
        assert len(added) == 1
        assert len(edited.splitlines()) == len(APP.splitlines()) + 1
        name = function.locator.rsplit(".", 1)[-1]
        edited_defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                       and n.name == name
                       and truth_mod.EDIT_LINE in [ast.unparse(s) for s in n.body]]
        assert len(edited_defs) == 1  # into the function's own body, nowhere else
        node = edited_defs[0]
        statements = [ast.unparse(s) for s in node.body]
        assert truth_mod.EDIT_LINE in statements[:2]
        assert not any(isinstance(d, ast.Name) and d.id == "overload"
                       for d in node.decorator_list)
        if ast.get_docstring(node) is not None:
            assert statements[1] == truth_mod.EDIT_LINE  # the docstring stays a docstring


def test_selected_ids_expand_commands_to_the_suites_node_ids() -> None:
    suite = ["tests/a.py::test_x[1]", "tests/a.py::test_x[2]", "tests/a.py::test_xy",
             "tests/a.py::TestC::test_m", "tests/b.py::test_z", "sub/tests/c.py::test_w"]
    assert evaluate.selected_ids(["pytest tests/a.py::test_x"], suite) == {
        "tests/a.py::test_x[1]", "tests/a.py::test_x[2]"}  # not test_xy
    assert evaluate.selected_ids(["pytest -q tests/a.py::TestC 'tests/a.py::test_x[2]'"],
                                 suite) == {"tests/a.py::TestC::test_m", "tests/a.py::test_x[2]"}
    assert evaluate.selected_ids(["pytest tests/b.py", "cd sub && pytest tests/c.py"],
                                 suite) == {"tests/b.py::test_z", "sub/tests/c.py::test_w"}
    grouped = "pytest tests/b.py::test_z && (cd sub && pytest tests/c.py) && pytest tests/a.py"
    assert evaluate.selected_ids([grouped], suite) == set(suite)
    assert evaluate.selected_ids(["(cd sub && pytest tests/c.py) && pytest tests/c.py"],
                                 suite) == {"sub/tests/c.py::test_w"}  # no tests/c.py at root
    assert evaluate.selected_ids(["warpline capture-snapshot --repo ."], suite) == set()


def test_scores_count_recall_misses_and_selection_size() -> None:
    scores = [evaluate.score("f", {"a", "b"}, {"a", "c", "d"}, 0.1, "static"),
              evaluate.score("g", {"e"}, set(), 0.2, "static")]
    summary = evaluate.summarise(scores, suite_size=10)
    assert summary["mean_recall"] == 0.25
    assert summary["edits_no_covering_test_hit"] == 1
    assert summary["edits_full_recall"] == 0
    assert summary["selection_over_truth_total"] == 1.0  # 3 selected / 3 true
    assert summary["bases"] == {"static": 2}
    assert scores[1].missed == ["e"]
