"""A changed memoized definition selects the tests of its callers (``cached_widen``).

Real git, a real ``pytest --warpline-record`` run for the map, and the truth from really
running the whole suite with the helper broken: every failing test must be selected.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.cachedproject import (
    BREAK,
    BREAK_CLEAN,
    CALLERS_TESTS,
    CLEAN,
    SPLIT,
    make_cached_project,
)
from tests.dispatchproject import run_pytest
from tests.gitfixture import FixtureRepo
from tests.graphfixture import call
from warpline.lang.pycached import cached_definitions


@pytest.fixture(autouse=True)
def _builtin_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_EDGE_SOURCES", "builtin")
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "30")


def _recorded_then_broken(root: Path, cached: bool,
                          edit: tuple[str, str] = BREAK) -> FixtureRepo:
    repo = make_cached_project(root, cached=cached)
    recorded = run_pytest(root, "--warpline-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    text = (root / "app/paths.py").read_text()
    repo.commit({"app/paths.py": text.replace(*edit)}, "break it")
    return repo


def _selected(env: dict[str, Any]) -> set[str]:
    command = env["next_actions"]["commands"][0]["command"]
    assert command.startswith("pytest ")
    return set(command.split()[1:])


def _failing(root: Path) -> set[str]:
    run = run_pytest(root, "-rf", "-p", "no:warpline")
    assert run.returncode == 1, run.stdout + run.stderr
    return set(re.findall(r"^FAILED (\S+)", run.stdout, re.M))


def test_a_changed_cached_helper_selects_its_callers_tests_and_says_why(tmp_path: Path) -> None:
    root = tmp_path / "project"
    repo = _recorded_then_broken(root, cached=True)
    env = call("reverify", repo=str(repo.path), rev_range="HEAD~1..HEAD")
    selection = env["data"]["selection"]
    failing = _failing(root)
    assert failing == CALLERS_TESTS  # the whole suite's truth: every caller's test fails
    assert failing <= _selected(env)
    assert "tests/test_e_other.py::test_other" not in _selected(env)
    # The map alone links the helper to the first test only (the blind spot).
    items = {i["entity"]["locator"]: i for i in env["data"]["items"]}
    assert items[SPLIT]["map_tests"] == 1
    # The item itself names its callers' tests, not only the map's one.
    suggested = {e["command"].split()[1] for e in items[SPLIT]["suggested_verification"]}
    assert suggested == CALLERS_TESTS
    (widened,) = selection["cached_entities"]
    assert widened["locator"] == SPLIT
    assert widened["decorator"] == "lru_cache"
    assert widened["callers"] >= 4  # depth, parent, root, and describe through root's cache
    assert widened["map_tests"] >= 3
    assert any(SPLIT in w and "cached" in w for w in env["warnings"])


@pytest.mark.parametrize("edit", [BREAK, BREAK_CLEAN], ids=["split", "clean"])
def test_without_a_cache_decorator_nothing_is_widened(tmp_path: Path,
                                                      edit: tuple[str, str]) -> None:
    root = tmp_path / "project"
    repo = _recorded_then_broken(root, cached=False, edit=edit)
    env = call("reverify", repo=str(repo.path), rev_range="HEAD~1..HEAD")
    selection = env["data"]["selection"]
    assert selection["cached_entities"] == []
    assert selection["basis"] == "map"
    assert _selected(env) == _failing(root) == CALLERS_TESTS  # the map's links, exactly
    assert not any("cached" in w for w in env["warnings"])


def test_code_called_through_a_cached_caller_selects_that_callers_tests(tmp_path: Path) -> None:
    """``clean`` is not cached; ``split`` above it is: only its first test runs ``clean``."""
    root = tmp_path / "project"
    repo = _recorded_then_broken(root, cached=True, edit=BREAK_CLEAN)
    env = call("reverify", repo=str(repo.path), rev_range="HEAD~1..HEAD")
    items = {i["entity"]["locator"]: i for i in env["data"]["items"]}
    assert items[CLEAN]["map_tests"] == 1  # the blind spot
    assert _failing(root) == CALLERS_TESTS <= _selected(env)
    (widened,) = env["data"]["selection"]["cached_entities"]
    assert widened["locator"] == CLEAN and widened["decorator"] is None
    assert SPLIT in widened["cached_callers"]


def test_the_reader_finds_every_caching_decorator_spelling() -> None:
    source = b'''\
import functools, functools as ft
from functools import cache, lru_cache, cached_property


@functools.cache
def a(): pass


@functools.lru_cache(maxsize=8)
def b(): pass


@lru_cache
def c(): pass


@ft.lru_cache()
def d(): pass


class K:
    @cached_property
    def e(self): pass

    @property
    def f(self): pass

    if True:
        @cache
        def g(self): pass


def outer():
    @cache
    def inner(): pass
    return inner


@staticmethod
def plain(): pass
'''
    assert cached_definitions(source) == {
        "a": "functools.cache", "b": "functools.lru_cache", "c": "lru_cache",
        "d": "ft.lru_cache", "K.e": "cached_property", "K.g": "cache",
        "outer.<locals>.inner": "cache"}
    assert cached_definitions(b"def broken(:\n") == {}


def test_an_uncommitted_change_is_read_from_the_work_tree(tmp_path: Path) -> None:
    root = tmp_path / "project"
    repo = make_cached_project(root)
    recorded = run_pytest(root, "--warpline-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    repo.write_worktree("app/paths.py", (root / "app/paths.py").read_text().replace(*BREAK))
    env = call("reverify", repo=str(repo.path), include_worktree=True)
    assert _failing(root) <= _selected(env)
    assert [c["locator"] for c in env["data"]["selection"]["cached_entities"]] == [SPLIT]


def test_a_change_removing_the_cache_is_widened_from_the_maps_version(tmp_path: Path) -> None:
    """The map was recorded while the helper was cached: its blind spot is still there."""
    root = tmp_path / "project"
    repo = make_cached_project(root)
    recorded = run_pytest(root, "--warpline-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    text = (root / "app/paths.py").read_text().replace("@lru_cache(maxsize=None)\n", "")
    repo.commit({"app/paths.py": text.replace(*BREAK)}, "uncache and break split")
    env = call("reverify", repo=str(repo.path), rev_range="HEAD~1..HEAD")
    assert _failing(root) <= _selected(env)
    (widened,) = env["data"]["selection"]["cached_entities"]
    assert (widened["locator"], widened["decorator"]) == (SPLIT, "lru_cache")
