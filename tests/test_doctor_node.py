"""``doctor`` flags loomweave installed without ``node`` (it then resolves no calls)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from warpline.setup.doctor import run_doctor
from warpline.setup.node_check import NAME, loomweave_node_check

pytestmark = pytest.mark.skipif(shutil.which("loomweave") is None,
                                reason="loomweave is not installed")


def _bin_with(root: Path, names: list[str]) -> str:
    """A real PATH directory holding only the named executables."""
    directory = root / "bin"
    directory.mkdir()
    for name in names:
        found = shutil.which(name)
        assert found is not None, name
        (directory / name).symlink_to(found)
    return str(directory)


def test_loomweave_without_node_is_a_warning_with_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WARPLINE_LOOMWEAVE_COMMAND", raising=False)
    monkeypatch.setenv("PATH", _bin_with(tmp_path, ["loomweave"]))
    check = loomweave_node_check(tmp_path)
    assert (check.name, check.status, check.required) == (NAME, "warn", False)
    assert check.fix is not None and "loomweave analyze" in check.fix


def test_loomweave_with_node_is_ok_and_without_loomweave_the_check_is_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    monkeypatch.delenv("WARPLINE_LOOMWEAVE_COMMAND", raising=False)
    monkeypatch.setenv("PATH", _bin_with(tmp_path, ["loomweave", "node"]))
    assert loomweave_node_check(tmp_path).status == "ok"
    monkeypatch.setenv("WARPLINE_LOOMWEAVE_COMMAND", "no-such-loomweave-binary")
    assert loomweave_node_check(tmp_path).status == "skipped"


def test_doctor_reports_the_node_check_without_failing_the_verdict(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"a.py": "x = 1\n"})
    path = os.environ.get("PATH", "")
    monkeypatch.delenv("WARPLINE_LOOMWEAVE_COMMAND", raising=False)
    bin_dir = _bin_with(tmp_path, ["loomweave", "git"])
    monkeypatch.setenv("PATH", bin_dir)
    report = run_doctor(str(repo.path))
    monkeypatch.setenv("PATH", path)
    checks = {c.name: c for c in report.checks}
    assert checks[NAME].status == "warn" and not checks[NAME].required
