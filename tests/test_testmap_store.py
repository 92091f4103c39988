"""The test-map tables (migration 4), which map answers (like edge snapshots), the recorder
without pytest (a real coverage.py tracer in this process), and the grouped test command
run for real on a repository holding two pytest projects."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from warpline.runners.pytest_command import MAX_IDS, command_for
from warpline.runners.pytest_coverage import Recorder, recording_from_lines
from warpline.service.shared.choice import choose_map
from warpline.store.db import Store
from warpline.store.migrations import SCHEMA_VERSION
from warpline.store.testmaps import KEEP_MAPS, RecordedMap, hits_by_test, maps, write_map
from warpline.testmap.entitymap import EntityMapper

MOD = '''\
import functools


def deco(fn):
    @functools.wraps(fn)
    def inner(*args):
        return fn(*args)
    return inner


class Box:
    size = 3

    def __init__(self, n):
        self.n = n

    @property
    def double(self):
        return self.n * 2


@deco
def called(x):
    return x + 1


def never(
    x=1,
):
    return x
'''


def _map(sha: str, tests: dict[str, set[str]], partial: list[str] | None = None) -> RecordedMap:
    return RecordedMap(commit_sha=sha, source="test", tracer_version="t",
                       tests={t: (t.split("::")[0], "passed") for t in tests},
                       hits=tests, partial=partial or [])


def test_migration_4_creates_the_test_map_tables(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"a.py": "x = 1\n"})
    with Store.open(repo.path) as store:
        assert store.schema_version() == SCHEMA_VERSION >= 4
        names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    assert {"test_maps", "test_map_tests", "test_map_entities", "test_map_hits"} <= names


def test_a_map_round_trips_and_old_maps_are_pruned(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    sha = repo.commit({"a.py": "x = 1\n"})
    hits = {"tests/t.py::test_a": {"python:module:a"}, "tests/t.py::test_b": set()}
    with Store.open(repo.path) as store:
        for n in range(KEEP_MAPS + 2):
            row = write_map(store, _map(sha, hits), now=1000 + n)
        assert (row.test_count, row.entity_count, row.hit_count) == (2, 1, 1)
        assert hits_by_test(store, row.id) == hits
        kept = maps(store)
        assert len(kept) == KEEP_MAPS and kept[0].id == row.id
        (orphans,) = store.conn.execute(
            "SELECT count(*) FROM test_map_hits WHERE map_id NOT IN "
            "(SELECT id FROM test_maps)").fetchone()
        assert orphans == 0


def test_the_chosen_map_is_on_heads_history_whole_and_nearest(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    first = repo.commit({"a.py": "x = 1\n"})
    second = repo.commit({"a.py": "x = 2\n"})
    repo.branch("side", first)
    repo.checkout("side")
    side = repo.commit({"b.py": "y = 1\n"})
    repo.checkout("main")
    hits = {"tests/t.py::test_a": {"python:module:a"}}
    with Store.open(repo.path) as store:
        old = write_map(store, _map(first, hits), now=1)
        write_map(store, _map(side, hits), now=5)  # newest, but not on HEAD's history
        choice = choose_map(store, repo.repo)
        assert choice is not None and choice.row.id == old.id
        assert (choice.commits_behind, choice.is_ancestor) == (1, True)
        assert "a.py" in choice.changed_paths_since
        write_map(store, _map(second, hits, partial=["-k x"]), now=6)
        choice = choose_map(store, repo.repo)
        assert choice is not None and choice.row.id == old.id  # whole suite beats partial
        whole = write_map(store, _map(second, hits), now=7)
        choice = choose_map(store, repo.repo)
        assert choice is not None and choice.row.id == whole.id
        assert choice.commits_behind == 0


def test_the_recorder_maps_lines_to_entities_by_containment(tmp_path: Path) -> None:
    import coverage

    if coverage.Coverage.current() is not None:
        pytest.skip("this process is already traced by coverage.py: one tracer at a time")
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/__init__.py": "", "pkg/mod.py": MOD})
    recorder = Recorder(repo.path)
    recorder.start()
    try:
        spec = importlib.util.spec_from_file_location("pkg.mod", repo.path / "pkg/mod.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # import time: no test context
        recorder.begin_test("tests/t.py::test_called")
        module.called(1)
        recorder.end_test()
        recorder.begin_test("tests/t.py::test_box")
        assert module.Box(2).double == 4
        recorder.end_test()
    finally:
        lines = recorder.stop()
    mapper = EntityMapper(repo.path, repo.repo, repo.repo.head.peel(pygit2.Commit))
    recording = recording_from_lines(mapper, lines)
    called = recording.hits["tests/t.py::test_called"]
    assert {"python:function:pkg.mod.called", "python:function:pkg.mod.deco.<locals>.inner",
            "python:module:pkg.mod"} <= called
    assert "python:function:pkg.mod.never" not in called
    box = recording.hits["tests/t.py::test_box"]
    assert {"python:function:pkg.mod.Box.__init__", "python:function:pkg.mod.Box.double",
            "python:class:pkg.mod.Box"} <= box
    # Defining functions (their decorators and signatures) ran at import, for the module.
    assert "python:function:pkg.mod.never" not in recording.at_import
    assert {"python:module:pkg.mod", "python:class:pkg.mod.Box",
            "python:function:pkg.mod.deco"} <= recording.at_import


def _project_file(root: Path, path: str, text: str) -> None:
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text)


def test_the_command_is_grouped_per_pytest_rootdir_so_that_it_collects(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    # Two pytest projects with a same-named test module: collected together from the
    # root they clash ("import file mismatch"); each from its own rootdir they run.
    _project_file(root, "pyproject.toml", "[tool.pytest.ini_options]\n")
    _project_file(root, "tests/test_app.py", "def test_root():\n    assert True\n")
    _project_file(root, "examples/tutorial/pyproject.toml",
                  "[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    _project_file(root, "examples/tutorial/tests/test_app.py",
                  "def test_tutorial():\n    assert True\n")
    ids = ["tests/test_app.py::test_root", "examples/tutorial/tests/test_app.py::test_tutorial"]
    built = command_for(root, ids)
    assert built is not None
    command, widened = built
    assert not widened
    assert command == ("pytest tests/test_app.py::test_root && (cd examples/tutorial && "
                       "pytest tests/test_app.py::test_tutorial)")
    env_python = Path(sys.executable).parent
    result = subprocess.run(["bash", "-c", command.replace(
        "pytest ", f"{sys.executable} -m pytest -p no:cacheprovider -q ")],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": f"{env_python}:/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("1 passed") == 2
    together = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                               *ids], cwd=root, capture_output=True, text=True, timeout=120,
                              check=False, env={"PYTHONDONTWRITEBYTECODE": "1",
                                                "PATH": "/usr/bin:/bin"})
    assert together.returncode != 0  # what grouping avoids


def test_past_the_id_cap_the_command_names_whole_files(tmp_path: Path) -> None:
    ids = [f"tests/test_{n % 7}.py::test_{n}" for n in range(MAX_IDS + 1)]
    built = command_for(tmp_path, ids)
    assert built is not None
    command, widened = built
    assert widened and command.split()[1:] == [f"tests/test_{n}.py" for n in range(7)]
