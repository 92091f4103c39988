"""cargo's map, runs and receipts for real on the fixture workspace: ``warpline
record-tests`` (LLVM source-based coverage, each test alone), ``run-tests --select`` (the
map's selection run as printed, its receipt), and the static selection without a map."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cargoproject import FILES, cargo_env, needs_cargo
from tests.gitfixture import FixtureRepo
from warpline.store.testmaps import RecordedMap


def _llvm_tools() -> bool:
    from warpline.errors import InvalidArgument
    from warpline.runners.cargo_coverage import llvm_tool

    try:
        llvm_tool("llvm-profdata")
    except InvalidArgument:
        return False
    return True


needs_llvm = pytest.mark.skipif(not _llvm_tools(),
                                reason="the Rust toolchain's llvm-tools are not installed")
SHAPES = "rust:function:shapes"
BUG = {"shapes/src/lib.rs": FILES["shapes/src/lib.rs"].replace("x * 2\n", "x * 2 + 1\n")}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cargomaptarget")


@pytest.fixture()
def repo(tmp_path: Path) -> FixtureRepo:
    fixture = FixtureRepo(tmp_path / "repo")
    fixture.commit(dict(FILES), "shapes")
    return fixture


def _warpline(root: Path, target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in cargo_env(target).items()
           if not k.startswith(("WARPLINE_", "GITHUB_")) and k != "CI"}
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def _map(root: Path) -> RecordedMap:
    from warpline.service.shared.context import open_context
    from warpline.store.testmaps import maps, read_map

    with open_context(str(root), root) as ctx:
        return read_map(ctx.store, max(maps(ctx.store), key=lambda m: m.id))


@needs_cargo
@needs_llvm
def test_record_tests_maps_each_test_to_what_it_ran(repo: FixtureRepo, target: Path) -> None:
    done = _warpline(repo.path, target, "record-tests", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)["records"]
    # cargo test --workspace runs 11 (the gated test needs its feature, one is ignored).
    assert (row["runner"], row["source"], row["tests"]) == ("cargo", "cargo-llvm-cov", 11)
    recorded = _map(repo.path)
    hits = recorded.hits
    assert f"{SHAPES}.double" in hits["shapes/src/lib.rs::tests::doubles"]
    assert f"{SHAPES}.area.Square.impl#<>.new" not in hits["shapes/src/lib.rs::tests::doubles"]
    # an integration test, and a test of another package through its dependency
    assert f"{SHAPES}.area.Square.impl[Area].area" in \
        hits["shapes/tests/api.rs::area_through_the_api"]
    assert f"{SHAPES}.area.Square.impl[Area].area" in hits["app/src/main.rs::tests::describes"]
    # a test a macro generates, by its libtest name
    assert f"{SHAPES}.double" in hits["shapes/src/lib.rs::tests::generated_two"]
    assert "shapes/src/lib.rs::tests::slow" not in recorded.tests
    assert not list(repo.path.glob("**/*.profraw"))  # no profile left in the work tree
    assert all(outcome == "passed" for _, outcome in recorded.tests.values())
    # A changed test runs itself (and nothing the map does not tie to the change).
    repo.commit({"shapes/src/area.rs": FILES["shapes/src/area.rs"].replace(
        "assert_eq!(s.area(), 9);", "assert_eq!(s.area(), 3 * 3);")}, "edit a test")
    done = _warpline(repo.path, target, "reverify", "HEAD~1..HEAD", "--json")
    selection = json.loads(done.stdout)["data"]["selection"]
    assert selection["tests"] == ["shapes/src/area.rs::area::tests::square_area"]


@needs_cargo
@needs_llvm
def test_run_tests_select_runs_the_map_s_selection_and_leaves_its_receipt(
        repo: FixtureRepo, target: Path) -> None:
    assert _warpline(repo.path, target, "record-tests").returncode == 0
    repo.commit(dict(BUG), "bug")
    done = _warpline(repo.path, target, "run-tests", "--select", "HEAD~1..HEAD", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    # Every test the map saw run `double`, and nothing else.
    assert sorted(run["tests"]) == sorted([
        "app/src/main.rs::tests::describes", "shapes/src/area.rs::area::tests::doubles",
        "shapes/src/area.rs::area::tests::square_area", "shapes/src/lib.rs::tests::doubles",
        "shapes/src/lib.rs::tests::generated_two", "shapes/src/lib.rs::tests::generated_three",
        "shapes/tests/api.rs::area_through_the_api",
        "shapes/tests/api.rs::double_through_the_api", "shapes/tests/suite/main.rs::suite_main",
        "shapes/tests/suite/more.rs::more::suite_more"])
    receipt = run["receipt"]
    assert receipt["extent"] == "selection" and receipt["selection"]["basis"] == "map"
    assert receipt["tests_run"] == 10
    assert set(receipt["failed_tests"]) >= {"shapes/src/lib.rs::tests::doubles",
                                            "shapes/tests/api.rs::double_through_the_api"}
    whole = _warpline(repo.path, target, "run-tests", "--json")
    receipt = json.loads(whole.stdout)["runs"][0]["receipt"]
    assert receipt["extent"] == "whole_suite", receipt
    assert (receipt["tests_passed"] + receipt["tests_failed"], receipt["tests_skipped"]) == (
        11, 1)  # every binary ran (the ignored test skipped)


@needs_cargo
def test_without_a_map_the_static_selection_reaches_tests_and_the_floor(
        repo: FixtureRepo, target: Path) -> None:
    repo.commit(dict({"shapes/src/area.rs": FILES["shapes/src/area.rs"].replace(
        "Square { side }", "Square { side: side + 1 }")}), "bug")
    done = _warpline(repo.path, target, "reverify", "HEAD~1..HEAD", "--json")
    assert done.returncode == 0, done.stderr
    selection = json.loads(done.stdout)["data"]["selection"]
    assert selection["basis"] == "static"
    tests = set(selection["tests"])
    # The graph: the tests calling Square::new (app's through its dependency).
    assert {"shapes/src/area.rs::area::tests::square_area",
            "app/src/main.rs::tests::describes"} <= tests
    # The floor: the package's integration tests and the changed file's own tests.
    assert {"shapes/tests/api.rs::area_through_the_api",
            "shapes/tests/suite/main.rs::suite_main",
            "shapes/src/area.rs::area::tests::doubles"} <= tests
    assert "shapes/src/lib.rs::tests::panics" not in tests
    (entry,) = selection["runners"]
    assert entry["runner"] == "cargo" and entry["command"].startswith("cargo test -p ")
    # The printed command runs, as printed, and fails on the bug.
    ran = subprocess.run(["bash", "-c", entry["command"]], cwd=repo.path,
                         env=cargo_env(target), capture_output=True, text=True, timeout=600,
                         check=False)
    assert ran.returncode != 0 and "describes ... FAILED" in ran.stdout


def test_record_refuses_a_repository_without_cargo(tmp_path: Path) -> None:
    plain = FixtureRepo(tmp_path / "plain")
    plain.commit({"README.md": "no crate here\n"}, "docs")
    done = _warpline(plain.path, tmp_path / "t", "record-tests", "--runner", "cargo", "--json")
    assert done.returncode != 0
    assert json.loads(done.stdout)["error_code"] == "invalid_argument"


@needs_cargo
@needs_llvm
def test_ci_records_the_pass_the_recording_run_backs(repo: FixtureRepo, target: Path,
                                                    tmp_path: Path) -> None:
    # cargo writes a Cargo.lock the repository does not commit: its own output, which
    # does not make the run one over uncommitted changes.
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=repo.path, check=True)
    subprocess.run(["git", "push", "-q", "origin", "HEAD:refs/heads/main"], cwd=repo.path,
                   check=True, capture_output=True)
    assert _warpline(repo.path, target, "record-tests").returncode == 0
    assert (repo.path / "Cargo.lock").is_file()
    done = _warpline(repo.path, target, "ci", "--record", "test_pass", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(done.stdout)["record"]["data"]
    assert (record["scope"], record["run"]["runner"], record["run"]["tests_passed"]) == (
        "whole_suite", "cargo", 11)
