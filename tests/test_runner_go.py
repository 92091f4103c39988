"""The ``go test`` row: discovery as ``go test`` finds tests, detection from ``go.mod``, and
commands that run exactly the selection as printed (run for real on a fixture project)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.gofixture import go_env, needs_go, ran, write
from warpline.runners.gotest_command import (
    collectable,
    command,
    command_lines,
    detect,
    discover,
    quote_meta,
)
from warpline.runners.gotest_rules import go_test_name, subtest_name


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
    listed = set()
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
