"""The cargo row: tests discovered as cargo lists them, detection from ``Cargo.toml``, the
whole suite as the repository's CI runs it, and commands that run exactly the selection
as printed (run for real with cargo, offline, on a fixture workspace)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cargoproject import ALL_TESTS, IGNORED, cargo_env, needs_cargo, ran, run_line, write
from warpline.runners import owner_of
from warpline.runners.cargo import CARGO
from warpline.runners.cargo_command import command, command_lines, detect, whole_suite
from warpline.runners.cargo_rules import is_ignored, is_test, split_id
from warpline.runners.cargo_tests import discover, file_tests


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("cargoproject"))


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cargotarget")


def test_test_attributes_as_libtest_reads_them() -> None:
    assert is_test(["test"]) and is_test(["tokio::test"])
    assert is_test(["tokio::test(flavor=\"multi_thread\")"]) and is_test(["async_std::test"])
    assert not is_test(["testing"]) and not is_test(["cfg(test)"]) and not is_test([])
    assert is_ignored(["ignore"]) and is_ignored(['ignore="slow"']) and not is_ignored(["test"])


def test_ids_are_the_file_and_the_libtest_name() -> None:
    assert split_id("crates/a/src/lib.rs::tests::x") == ("crates/a/src/lib.rs", "tests::x")
    assert CARGO.owns("tests/cli.rs::parse") and not CARGO.owns("tests/test_a.py::test_x")
    assert CARGO.test_file("tests/cli.rs::parse") == "tests/cli.rs"
    assert owner_of("src/lib.rs::tests::x") is CARGO


def test_detection_reads_cargo_toml_at_the_root_or_below(tmp_path: Path) -> None:
    assert not detect(tmp_path)
    write(tmp_path, {"native/core/Cargo.toml": '[package]\nname = "c"\n'})
    assert detect(tmp_path)
    link = tmp_path / "elsewhere"
    link.mkdir()
    (link / "Cargo.toml").symlink_to(tmp_path / "native/core/Cargo.toml")
    other = tmp_path / "o"
    other.mkdir()
    (other / "Cargo.toml").symlink_to(tmp_path / "native/core/Cargo.toml")
    assert not detect(other)  # a symlinked manifest is not read


def test_whole_suite_says_what_the_repositorys_ci_runs(tmp_path: Path) -> None:
    write(tmp_path, {"Cargo.toml": '[workspace]\nmembers = ["a"]\n'})
    assert whole_suite(tmp_path) == "cargo test --workspace"
    write(tmp_path, {".github/workflows/ci.yml":
                     "jobs:\n  t:\n    steps:\n      - run: cargo nextest run --all-features\n"})
    assert whole_suite(tmp_path) == "cargo nextest run --workspace --all-features"


def test_discovery_finds_the_tests_of_every_target(project: Path) -> None:
    found = {t.test_id: t.ignored for t in discover(project)}
    assert sorted(i for i, ignored in found.items() if not ignored) == ALL_TESTS
    assert [i for i, ignored in found.items() if ignored] == IGNORED
    assert sorted(file_tests(project, "shapes/src/lib.rs")) == [
        "shapes/src/lib.rs::tests::doubles", "shapes/src/lib.rs::tests::generated_three",
        "shapes/src/lib.rs::tests::generated_two", "shapes/src/lib.rs::tests::panics"]
    assert file_tests(project, "shapes/src/nowhere.rs") == []


@needs_cargo
def test_discovery_equals_cargos_own_list(project: Path, target: Path) -> None:
    done = run_line(project, "cargo test --workspace --all-features -- --list --format terse",
                    target)
    assert done.returncode == 0, done.stderr
    listed = sorted(re.findall(r"^(\S+): test$", done.stdout, re.M))
    ours = sorted(split_id(t.test_id)[1] for t in discover(project))
    assert ours == listed


@needs_cargo
@pytest.mark.parametrize("selected", [
    ["shapes/src/lib.rs::tests::doubles"],
    ["shapes/src/area.rs::area::tests::doubles", "shapes/tests/api.rs::area_through_the_api",
     "shapes/tests/suite/more.rs::more::suite_more", "app/src/main.rs::tests::describes"],
    ["shapes/tests/gated.rs::gated_only_with_extra", "shapes/src/lib.rs::tests::generated_two",
     "shapes/src/lib.rs::tests::generated_three"],
])
def test_the_printed_command_runs_exactly_the_selection(project: Path, target: Path,
                                                        selected: list[str]) -> None:
    built = command(project, selected)
    assert built is not None and not built[1]
    assert built[0].startswith("cargo test -p ")
    done = run_line(project, built[0], target)
    assert done.returncode == 0, done.stdout + done.stderr
    # Two tests share the name tests::doubles (lib.rs and area.rs's area::tests::doubles):
    # --exact runs the one named.
    assert ran(done.stdout) == sorted(split_id(i)[1] for i in selected)
    for line in command_lines(project, selected):
        assert run_line(project, line, target).returncode == 0


@needs_cargo
def test_a_failing_selection_fails(project: Path, tmp_path: Path) -> None:
    shutil.copytree(project, tmp_path / "p")
    broken = tmp_path / "p" / "shapes/src/lib.rs"
    broken.write_text(broken.read_text().replace("x * 2", "x * 3"))
    built = command(tmp_path / "p", ["shapes/tests/api.rs::double_through_the_api"])
    assert built is not None
    # Its own target directory: cargo would take the copy's artifacts for the original's.
    done = run_line(tmp_path / "p", built[0], tmp_path / "t")
    assert done.returncode != 0
    assert "test double_through_the_api ... FAILED" in done.stdout


def test_past_max_ids_whole_files_run_by_module_path(project: Path) -> None:
    many = [f"shapes/src/area.rs::area::tests::t{i}" for i in range(CARGO.max_ids + 1)]
    built = command(project, many)
    assert built is not None and built[1]
    assert built[0] == "cargo test -p shapes --lib -- area::"


def test_collectable_drops_tests_no_longer_defined(project: Path) -> None:
    ids = ["shapes/src/lib.rs::tests::doubles", "shapes/src/lib.rs::tests::gone",
           "shapes/src/gone.rs::tests::x"]
    assert CARGO.collectable(project, ids) == ["shapes/src/lib.rs::tests::doubles"]


@needs_cargo
def test_run_tests_watches_each_tests_outcome(project: Path, target: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from warpline.runners.cargo_run import run

    for key, value in cargo_env(target).items():
        monkeypatch.setenv(key, value)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    state, status = run(project, ["shapes/src/lib.rs::tests::doubles",
                                  "shapes/tests/api.rs::area_through_the_api"])
    assert status == 0
    assert state.outcomes == {"shapes/src/lib.rs::tests::doubles": "passed",
                              "shapes/tests/api.rs::area_through_the_api": "passed"}


def test_a_committed_cargo_lock_runs_the_whole_suite_an_untracked_one_is_cargo_s_output(
        tmp_path: Path) -> None:
    from tests.gitfixture import FixtureRepo
    from warpline.service.impact.seeds import Seed
    from warpline.service.testing.filekinds import TEST_CONFIG, split

    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
                 "src/lib.rs": "pub fn f() {}\n"}, message="one")
    lock = "core:file:Cargo.lock"
    (repo.path / "Cargo.lock").write_text("version = 4\n", encoding="utf-8")

    def kinds(uncommitted: bool) -> dict[str, str]:
        seed = Seed(lock, "file", "Cargo.lock", None, None, None, uncommitted=uncommitted)
        return split(repo.path, [seed]).kinds

    # cargo wrote it, the repository commits none: no configuration changed
    assert kinds(True) == {}
    repo.commit({"Cargo.lock": "version = 4\n"}, message="lock")
    (repo.path / "Cargo.lock").write_text("version = 4\n# bumped\n", encoding="utf-8")
    assert kinds(True) == {lock: TEST_CONFIG}  # the committed lock edited in the work tree
    assert kinds(False) == {lock: TEST_CONFIG}  # a range that changed it
