"""The CLI adapter: tables by default, envelopes with --json, exit codes 0 / 1 / 70."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.store.db import store_path

SRC = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"


def _cli(*args: str, cwd: Path | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})})


def _repo(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/core.py": SRC}, message="one")
    repo.commit({"app/core.py": SRC.replace("return 2", "return 3")}, message="two")
    return repo


def test_changed_prints_a_readable_table_by_default(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("changed", "HEAD", "--repo", str(repo.path))
    assert result.returncode == 0, result.stderr
    header = result.stdout.splitlines()[0].split()
    assert header == ["CHANGE", "KIND", "NATURE", "ENTITY", "COMMIT", "WHEN", "ACTOR"]
    assert "python:function:app.core.beta" in result.stdout
    assert "\x1b[" not in result.stdout


def test_json_prints_a_contract_valid_envelope(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    for args in (["changed", "HEAD~1..HEAD"], ["timeline", "app.core.beta"],
                 ["churn", "app.core.beta", "app.core.alpha"]):
        result = _cli(*args, "--repo", str(repo.path), "--json")
        assert result.returncode == 0, result.stderr
        envelope = json.loads(result.stdout)
        assert_valid_envelope(envelope)


def test_the_repo_defaults_to_the_current_directory(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("churn", "app.core.beta", "--json", cwd=repo.path)
    assert json.loads(result.stdout)["data"]["items"][0]["churn_count"] == 2


def test_bad_input_exits_1_with_the_error_envelope(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("changed", "no-such-rev", "--repo", str(repo.path), "--json")
    assert result.returncode == 1
    error = json.loads(result.stdout)
    assert_valid_envelope(error)
    assert error["error_code"] == "invalid_rev_range"
    assert "Traceback" not in result.stderr


def test_not_a_repository_exits_1_with_invalid_repo(tmp_path: Path) -> None:
    result = _cli("changed", "--repo", str(tmp_path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error_code"] == "invalid_repo"
    assert not (tmp_path / ".weft").exists()


def test_a_corrupt_store_exits_1_with_store_unreadable(tmp_path: Path) -> None:
    """Not a defect of ours (issue 13): the closed store_unreadable answer, with the repair."""
    repo = _repo(tmp_path)
    path = store_path(repo.path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a sqlite database" * 100)
    result = _cli("changed", "--repo", str(repo.path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error_code"] == "store_unreadable"
    assert "Traceback" not in result.stderr


def test_mcp_smoke_checks_an_installation_end_to_end(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("mcp-smoke", "--repo", str(repo.path),
                  "--command", f"{sys.executable} -m warpline.mcp")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mcp_smoke_fails_when_the_server_cannot_start(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("mcp-smoke", "--repo", str(repo.path), "--command",
                  str(tmp_path / "no-such-server"))
    assert result.returncode != 0


def test_a_flag_argparse_rejects_exits_1_with_the_error_envelope(tmp_path: Path) -> None:
    result = _cli("changed", "--limit", "abc", "--json", cwd=tmp_path)
    assert result.returncode == 1
    error = json.loads(result.stdout)
    assert_valid_envelope(error)
    assert (error["error_code"], error["rejected_field"]) == ("invalid_argument", "limit")
    assert "usage:" not in result.stderr and "Traceback" not in result.stderr


# The parser rejects what only a command line can get wrong (an unknown flag or command, a
# --format); a bad value of a tool argument reaches the tool's input model, which answers
# with the code and field MCP gives for the same mistake (see test_parity.py).
@pytest.mark.parametrize(("argv", "code", "field"), [
    (["changed", "--bogus"], "invalid_argument", None),
    (["changed", "--change-kind", "sideways"], "invalid_filter", "filters.change_kinds.0"),
    (["blast-radius", "--depth", "two"], "invalid_depth", "depth"),
    (["verify-record", "--kind", "test_pass"], "missing_required_field", "commit"),
    (["reverify", "--format", "pdf"], "invalid_argument", "format"),
    (["no-such-command"], "invalid_argument", "command"),
])
def test_every_command_line_error_is_the_error_envelope(
        argv: list[str], code: str, field: str | None,
        capsys: pytest.CaptureFixture[str]) -> None:
    from warpline.cli import main

    assert main([*argv, "--json"]) == 1
    error = json.loads(capsys.readouterr().out)
    assert_valid_envelope(error)
    assert (error["error_code"], error["rejected_field"]) == (code, field)


def test_a_command_line_error_without_json_prints_no_envelope(
        capsys: pytest.CaptureFixture[str]) -> None:
    from warpline.cli import main

    assert main(["changed", "--limit", "abc"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "invalid_argument" in captured.err


@pytest.mark.parametrize("argv", [["--version"], ["backfill", "--repo", "."], ["doctor"],
                                  ["hook-ingest", "post-commit"]])
def test_commands_that_are_not_tools_never_load_the_tool_table(argv: list[str]) -> None:
    code = ("import sys; from warpline.cli.commands import build_parser; "
            f"build_parser({argv!r}); "
            "print(sorted(m for m in ('pydantic', 'warpline.registry') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
