"""The ``go test`` row: discovery as ``go test`` finds tests, detection from ``go.mod``, and
commands that run exactly the selection as printed (run for real on a fixture project)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from tests.gofixture import FILES, go_env, needs_go, ran, write
from warpline.runners.gotest_command import (
    collectable,
    command,
    command_lines,
    detect,
    discover,
    quote_meta,
)
from warpline.runners.gotest_rules import go_test_name, subtest_name
from warpline.store.testmaps import RecordedMap


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("goproject"))


def _run(root: Path, line: str, log: Path) -> list[str]:
    if log.exists():
        log.unlink()
    done = subprocess.run(["bash", "-c", line], cwd=root, env=go_env(log),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return ran(log)


def test_go_test_names_follow_the_toolchains_rule() -> None:
    assert go_test_name("Test", "Test") and go_test_name("TestX", "Test")
    assert go_test_name("Test_x", "Test") and go_test_name("Test1", "Test")
    assert not go_test_name("Testify", "Test") and not go_test_name("Tes", "Test")
    assert subtest_name("case one") == "case_one"


def test_detection_reads_go_mod_at_the_root_or_below(tmp_path: Path) -> None:
    assert not detect(tmp_path)
    write(tmp_path, {"svc/go.mod": "module x\n"})
    assert detect(tmp_path)
    other = tmp_path / "other"
    write(other, {"testdata/go.mod": "module y\n", "README.md": "go.mod\n"})
    assert not detect(other)  # `go` ignores testdata: so does detection


@needs_go
def test_discovery_finds_what_go_test_lists(project: Path) -> None:
    found = {t.test_id: t for t in discover(project)}
    listed: set[str] = set()
    for module in (project, project / "tools"):
        out = subprocess.run(["go", "test", "-list", ".*", "./..."], cwd=module,
                             env=go_env(), capture_output=True, text=True, check=True,
                             timeout=300).stdout
        listed.update(line for line in out.splitlines() if line and not line.startswith("ok"))
    assert {t.name for t in found.values()} == listed
    assert found["calc/calc_test.go::BenchmarkAdd"].kind == "benchmark"
    assert found["calc/scale_test.go::ExampleAdd"].kind == "example"
    assert "calc/scale_test.go::ExampleSub" not in found  # no output comment: never run
    assert found["calc/calc_test.go::TestTable"].subtests == [
        "TestTable/case_one", "TestTable/a+b_(x)", "TestTable/a+b_(x)/deep.er",
        "TestTable/x.y[1]"]


@needs_go
@pytest.mark.parametrize(("ids", "expected"), [
    (["calc/calc_test.go::TestAdd"], ["TestAdd"]),
    (["calc/calc_test.go::TestAdd", "calc/calc_test.go::TestSub",
      "calc/scale_test.go::TestScale", "calc/scale_test.go::ExampleAdd",
      "calc/calc_test.go::FuzzAdd"],
     ["ExampleAdd", "FuzzAdd", "TestAdd", "TestScale", "TestSub"]),
    (["calc/calc_test.go::TestTable/a+b_(x)", "calc/calc_test.go::TestTable/x.y[1]"],
     ["TestTable", "TestTable/a+b_(x)", "TestTable/a+b_(x)/deep.er", "TestTable/x.y[1]"]),
    (["calc/calc_test.go::TestTable/a+b_(x)/deep.er", "calc/calc_test.go::TestAddition"],
     ["TestAddition", "TestTable", "TestTable/a+b_(x)", "TestTable/a+b_(x)/deep.er"]),
    (["app/app_test.go::TestAdd", "tools/lint/lint_test.go::TestClean"],
     ["app.TestAdd", "tools.TestClean"]),
    (["calc/calc_test.go::TestTable"],
     ["TestTable", "TestTable/a+b_(x)", "TestTable/a+b_(x)/deep.er", "TestTable/case_one",
      "TestTable/x.y[1]"]),
])
def test_the_printed_command_runs_exactly_the_selection(project: Path, tmp_path: Path,
                                                         ids: list[str],
                                                         expected: list[str]) -> None:
    printed = command(project, ids)
    assert printed is not None
    assert _run(project, printed[0], tmp_path / "log") == expected
    # Each line alone runs its part, and together they run the same tests.
    every = [name for line in command_lines(project, ids)
             for name in _run(project, line, tmp_path / "log")]
    assert sorted(every) == expected


def test_names_are_escaped_as_go_quotes_them() -> None:
    assert quote_meta("a+b_(x)") == r"a\+b_\(x\)"
    assert quote_meta("x.y[1]") == r"x\.y\[1\]"


def test_a_module_in_a_subdirectory_runs_from_its_own_directory(project: Path) -> None:
    printed = command(project, ["tools/lint/lint_test.go::TestDirty"])
    assert printed == ("(cd tools && go test ./lint -count=1 -run '^TestDirty$')", False)


def test_collectable_drops_deleted_tests_and_benchmarks(project: Path) -> None:
    ids = ["calc/calc_test.go::TestAdd", "calc/calc_test.go::TestGone",
           "calc/calc_test.go::BenchmarkAdd", "calc/calc_test.go::TestTable/case_one"]
    assert collectable(project, ids) == ["calc/calc_test.go::TestAdd",
                                         "calc/calc_test.go::TestTable/case_one"]


@needs_go
def test_a_whole_file_runs_its_tests(project: Path, tmp_path: Path) -> None:
    printed = command(project, ["calc/scale_test.go"])
    assert printed is not None
    assert _run(project, printed[0], tmp_path / "log") == ["ExampleAdd", "TestScale"]


# ---- maps, runs and receipts (warpline record-tests / run-tests) -------------------------

CALC = "go:function:example.com/demo/calc"


def _warpline(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in go_env().items() if not k.startswith(("WARPLINE_", "GITHUB_"))
           and k != "CI"}
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture()
def repo(tmp_path: Path) -> FixtureRepo:
    fixture = FixtureRepo(tmp_path / "repo")
    fixture.commit(dict(FILES), "demo")
    return fixture


def _map(root: Path) -> RecordedMap:
    from warpline.service.shared.context import open_context
    from warpline.store.testmaps import maps, read_map

    with open_context(str(root), root) as ctx:
        return read_map(ctx.store, max(maps(ctx.store), key=lambda m: m.id))


@needs_go
def test_record_tests_maps_each_test_to_what_it_ran(repo: FixtureRepo) -> None:
    done = _warpline(repo.path, "record-tests", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)["records"]
    assert (row["runner"], row["source"], row["tests"]) == ("go", "go-cover", 11)
    recorded = _map(repo.path)
    assert recorded.hits["calc/calc_test.go::TestSub"] == {
        f"{CALC}.Sub", "go:module:example.com/demo/calc"}
    assert {f"{CALC}.Scaler.Apply", f"{CALC}.Mul"} <= \
        recorded.hits["calc/scale_test.go::TestScale"]  # the external test package
    assert f"{CALC}.Add" in recorded.hits["app/app_test.go::TestTotal"]  # across packages
    assert f"{CALC}.Add" in recorded.hits["calc/scale_test.go::ExampleAdd"]
    assert f"{CALC}.Add" in recorded.hits["calc/calc_test.go::FuzzAdd"]  # its seed corpus
    assert "go:function:example.com/tools/lint.Clean" in \
        recorded.hits["tools/lint/lint_test.go::TestClean"]  # the module below the root
    assert "calc/calc_test.go::BenchmarkAdd" not in recorded.tests
    assert all(outcome == "passed" for _, outcome in recorded.tests.values())


@needs_go
def test_a_recorded_failure_is_in_the_map_and_its_receipt(repo: FixtureRepo) -> None:
    repo.commit({"calc/calc.go": FILES["calc/calc.go"].replace("a - b", "a - b + 1")}, "bug")
    done = _warpline(repo.path, "record-tests", "--json")
    assert done.returncode == 1
    (row,) = json.loads(done.stdout)["records"]
    assert row["failed_tests"] == ["calc/calc_test.go::TestSub"]
    assert _map(repo.path).tests["calc/calc_test.go::TestSub"][1] == "failed"


@needs_go
def test_run_tests_select_runs_the_map_s_selection_and_leaves_its_receipt(
        repo: FixtureRepo) -> None:
    assert _warpline(repo.path, "record-tests").returncode == 0
    repo.commit({"calc/calc.go": FILES["calc/calc.go"].replace("a - b", "a - b + 1")}, "bug")
    done = _warpline(repo.path, "run-tests", "--select", "HEAD~1..HEAD", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert run["tests"] == ["calc/calc_test.go::TestSub"]
    receipt = run["receipt"]
    assert (receipt["extent"], receipt["tests_run"], receipt["failed_tests"]) == (
        "selection", 1, ["calc/calc_test.go::TestSub"])
    assert receipt["selection"]["basis"] == "map"
    whole = _warpline(repo.path, "run-tests", "--json")
    assert whole.returncode == 1
    receipt = json.loads(whole.stdout)["runs"][0]["receipt"]
    assert (receipt["extent"], receipt["tests_run"], receipt["tests_failed"]) == (
        "whole_suite", 11, 1)


@needs_go
def test_without_a_map_the_static_selection_reaches_tests_and_the_package_floor(
        repo: FixtureRepo) -> None:
    repo.commit({"calc/calc.go": FILES["calc/calc.go"].replace("a + b", "a + b + 1")}, "bug")
    done = _warpline(repo.path, "reverify", "HEAD~1..HEAD", "--json")
    assert done.returncode == 0, done.stderr
    selection = json.loads(done.stdout)["data"]["selection"]
    assert selection["basis"] == "static"
    # calc's test files and those of app, which imports calc; not tools' (another module).
    assert set(selection["tests"]) >= {"calc/calc_test.go", "calc/scale_test.go",
                                       "app/app_test.go"}
    assert not any(t.startswith("tools/") for t in selection["tests"])
    (entry,) = selection["runners"]
    assert entry["runner"] == "go"
    assert set(entry["command"].split(" && ")) == {"go test ./app -count=1",
                                                   "go test ./calc -count=1"}


@needs_go
def test_an_imported_directory_is_the_same_map(repo: FixtureRepo, tmp_path: Path) -> None:
    from warpline.runners.gotest_coverage import record

    record(repo.path, tmp_path / "profiles")
    done = _warpline(repo.path, "import-coverage", str(tmp_path / "profiles"), "--runner", "go",
                     "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["tests"] == 11
    broken = _warpline(repo.path, "import-coverage", str(tmp_path), "--runner", "go", "--json")
    assert json.loads(broken.stdout)["error_code"] == "invalid_argument"


def test_record_and_run_refuse_what_they_cannot_run(tmp_path: Path) -> None:
    plain = FixtureRepo(tmp_path / "plain")
    plain.commit({"README.md": "no go here\n"}, "docs")
    for argv in (["record-tests", "--json"], ["run-tests", "--json"],
                 ["record-tests", "--runner", "pytest", "--json"]):
        done = _warpline(plain.path, *argv)
        assert done.returncode != 0
        error = json.loads(done.stdout)
        assert (error["error_code"], error["rejected_field"]) == ("invalid_argument", "runner")
