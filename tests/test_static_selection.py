"""The static fallback: test discovery by the project's pytest rules, fixtures, constructors,
properties, registered callbacks, re-exports and the import floor (built-in source, a real
git repository; expectations written by hand from ``tests/staticfixture.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from tests.graphfixture import call
from tests.staticfixture import (
    ADD,
    BASE_ADD,
    CHECK_EMIT,
    CHECK_NORM,
    CHECK_SUB,
    DISPATCH,
    FIXTURE_CLEAN,
    FIXTURE_POINT,
    NEG,
    NORM,
    ON_PING,
    POINT_INIT,
    POINT_NEW,
    SUB_POINT,
    F,
    make_static_repo,
)
from warpline.graph.builtin import capture_builtin
from warpline.graph.graph import graph_from_capture
from warpline.graph.model import EdgeCapture
from warpline.service.impact import suggest


@pytest.fixture(autouse=True)
def _no_auto_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    monkeypatch.delenv("WARPLINE_EDGE_SOURCES", raising=False)


@pytest.fixture(scope="module")
def app_repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    repo = make_static_repo(tmp_path_factory.mktemp("static") / "repo")
    call("capture_snapshot", repo=str(repo.path))
    return repo


@pytest.fixture(scope="module")
def capture(app_repo: FixtureRepo) -> EdgeCapture:
    repo = pygit2.Repository(str(app_repo.path))
    return capture_builtin(repo, repo.head.peel(pygit2.Commit))


def _edges(capture: EdgeCapture) -> dict[tuple[str, str], tuple[str, str | None]]:
    return {(e.source_locator, e.target_locator): (e.kind, e.confidence) for e in capture.edges}


def test_a_test_requesting_a_fixture_calls_it_resolved_through_the_nearest_conftest(
        capture: EdgeCapture) -> None:
    edges = _edges(capture)
    assert edges[(CHECK_NORM, FIXTURE_POINT)] == ("calls", "resolved")
    # checks/sub/ overrides `point`: its tests get the override, which requests the parent.
    assert edges[(CHECK_SUB, SUB_POINT)] == ("calls", "resolved")
    assert (CHECK_SUB, FIXTURE_POINT) not in edges
    assert edges[(SUB_POINT, FIXTURE_POINT)] == ("calls", "resolved")
    # An autouse fixture is requested by every test under its conftest's directory.
    for test in (CHECK_NORM, CHECK_SUB, CHECK_EMIT, BASE_ADD):
        assert edges[(test, FIXTURE_CLEAN)] == ("calls", "resolved")


def test_calling_a_class_calls_its_new_and_init(capture: EdgeCapture) -> None:
    edges = _edges(capture)
    assert edges[(FIXTURE_POINT, POINT_NEW)] == ("calls", "resolved")
    assert edges[(FIXTURE_POINT, POINT_INIT)] == ("calls", "resolved")


def test_reading_a_property_is_a_call_of_it(capture: EdgeCapture) -> None:
    assert _edges(capture)[(CHECK_NORM, NORM)] == ("calls", "resolved")


def test_a_dispatcher_reading_a_table_calls_the_callbacks_registered_into_it(
        capture: EdgeCapture) -> None:
    edges = _edges(capture)
    assert edges[(DISPATCH, ADD)] == ("calls", "inferred")
    assert edges[(DISPATCH, NEG)] == ("calls", "inferred")
    assert edges[(f"{F}app.bus.EventBus.emit", ON_PING)] == ("calls", "inferred")


def test_registering_is_not_calling(capture: EdgeCapture) -> None:
    edges = _edges(capture)
    for registrar in (f"{F}app.core.route", f"{F}app.core.route.<locals>.deco",
                      f"{F}app.core.reset", f"{F}app.bus.EventBus.on"):
        assert (registrar, ADD) not in edges and (registrar, ON_PING) not in edges
    # The callback still depends on its decorator.
    assert edges[(ADD, f"{F}app.core.route")] == ("references", "resolved")


def test_discovery_follows_the_projects_pytest_configuration(app_repo: FixtureRepo) -> None:
    repo = pygit2.Repository(str(app_repo.path))
    graph = graph_from_capture(capture_builtin(repo, repo.head.peel(pygit2.Commit)))
    graph.graph["discovery"] = capture_builtin(repo, repo.head.peel(pygit2.Commit)).discovery
    from warpline.runners.pytest_discovery import collected_ids, graph_tests

    found = sorted(i for t in graph_tests(graph) for i in collected_ids(graph, t))
    assert found == [
        "checks/check_bus.py::check_emit",
        "checks/check_model.py::CheckChild::check_add",
        "checks/check_model.py::CheckOther::check_add",
        "checks/check_model.py::check_norm",
        "checks/sub/check_sub.py::check_sub_point",
    ]  # not BaseChecks (not a python_class), nor anything under tests/ (not python_files)


def _union(env: dict[str, Any]) -> str:
    return str(env["next_actions"]["commands"][0]["command"])


def test_a_changed_callback_selects_the_tests_that_dispatch_to_it(app_repo: FixtureRepo) -> None:
    env = call("reverify", repo=str(app_repo.path), changed_refs=[ADD])
    items = {i["entity"]["locator"]: i for i in env["data"]["items"]}
    commands = [s["command"] for s in items[ADD]["suggested_verification"]]
    assert commands == ["pytest checks/check_model.py::CheckChild::check_add"]
    # check_model.py imports app.views: the floor runs the whole file.
    assert _union(env) == "pytest checks/check_model.py"


def test_a_changed_constructor_selects_tests_using_the_fixture_that_builds_it(
        app_repo: FixtureRepo) -> None:
    env = call("reverify", repo=str(app_repo.path), changed_refs=[POINT_NEW])
    items = {i["entity"]["locator"]: i for i in env["data"]["items"]}
    commands = {s["command"] for s in items[POINT_NEW]["suggested_verification"]}
    assert commands == {"pytest checks/check_model.py::check_norm",
                        "pytest checks/sub/check_sub.py::check_sub_point"}
    assert _union(env) == ("pytest checks/check_model.py "
                           "checks/sub/check_sub.py::check_sub_point")


def test_the_floor_is_the_test_files_importing_the_module_or_a_reexported_name(
        app_repo: FixtureRepo) -> None:
    # app/core.py: check_model.py imports `dispatch` from the package that re-exports it;
    # tests/test_outside.py does too but is not a test file under this configuration.
    env = call("reverify", repo=str(app_repo.path), changed_refs=[f"{F}app.core.reset"],
               depth=0)
    assert _union(env) == "pytest checks/check_model.py"


def test_a_snapshot_says_how_many_call_sites_it_left_unresolved(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/a.py": "def f(x):\n    return x()\n\n\ndef g():\n    return f(g)\n"})
    env = call("capture_snapshot", repo=str(repo.path))
    assert env["data"]["completeness"] == "FULL"
    assert env["data"]["unresolved_calls"] == 1
    assert env["data"]["edge_sources"] == [
        {"source": "builtin", "entities": 4, "edges": 1, "unresolved_calls": 1}]
    impact = call("blast_radius", repo=str(repo.path), changed_refs=[f"{F}pkg.a.f"])
    assert impact["data"]["edge_basis"]["unresolved_calls"] == 1
    assert impact["data"]["edge_basis"]["edge_sources"][0]["source"] == "builtin"
    assert impact["data"]["completeness"] == "FULL"


def test_a_capture_with_no_edges_but_unresolved_calls_is_never_full(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/a.py": "def f(x):\n    return x()\n"})
    env = call("capture_snapshot", repo=str(repo.path))
    assert env["data"]["edges"] == 0 and env["data"]["unresolved_calls"] == 1
    assert env["data"]["completeness"] == "DELTA"
    reverify = call("reverify", repo=str(repo.path), changed_refs=[f"{F}pkg.a.f"])
    assert reverify["data"]["completeness"] == "DELTA"
    assert reverify["data"]["edge_basis"]["unresolved_calls"] == 1


def test_the_union_runs_every_test_reaching_a_change_not_only_the_nearest_five(
        tmp_path: Path) -> None:
    tests = "".join(f"def test_{i}():\n    assert g()\n\n\n" for i in range(7))
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n\n\n"
                 "def g():\n    return f()\n",
                 "tests/helpers.py": "from pkg.a import g\n",
                 "tests/test_x.py": "from tests.helpers import g\n\n\n" + tests})
    git = pygit2.Repository(str(repo.path))
    capture = capture_builtin(git, git.head.peel(pygit2.Commit))
    graph = graph_from_capture(capture)
    graph.graph["discovery"] = capture.discovery
    nearest = suggest.nearest_tests(graph, [f"{F}pkg.a.f"])[f"{F}pkg.a.f"]
    assert len(nearest) == suggest.PER_ITEM
    reaching = suggest.reaching_tests(graph, [f"{F}pkg.a.f"])
    assert sorted(reaching) == [f"{F}tests.test_x.test_{i}" for i in range(7)]
    assert set(reaching.values()) == {2}
    # test_x.py imports g through a helper module: its tests use an entity of pkg.a
    # directly, so the floor counts it (and the helper, a file under tests/).
    assert suggest.floor_files(graph, [f"{F}pkg.a.f"]) == ["tests/helpers.py",
                                                          "tests/test_x.py"]
