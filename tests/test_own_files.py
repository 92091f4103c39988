"""warpline's own files are never the user's change (issue 27, defect 8): the ``.mcp.json``
``install`` wrote, in a real repository, with the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo

SRC = "def f():\n    return 1\n"
TEST = "from app.core import f\n\n\ndef test_f():\n    assert f() == 1\n"


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPLINE_")}
    env.update({"WARPLINE_EDGE_SOURCES": "builtin", "NO_COLOR": "1"})
    done = subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _json(repo: Path, *args: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(_cli(repo, *args, "--json").stdout)
    return result


def _paths(envelope: dict[str, Any]) -> set[str]:
    return {i["entity"]["path"] for i in envelope["data"]["items"]}


@pytest.fixture()
def installed(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/__init__.py": "", "app/core.py": SRC, "tests/test_core.py": TEST}, "one")
    _cli(repo.path, "install")
    assert (repo.path / ".mcp.json").is_file()
    return repo


def test_the_mcp_json_install_wrote_is_not_my_work(installed: FixtureRepo) -> None:
    path = installed.path
    assert ".mcp.json" not in _paths(_json(path, "changed"))
    reverify = _json(path, "reverify")
    assert reverify["data"]["items"] == []
    assert not any("whole suite" in w for w in reverify["warnings"])
    # with a real edit alongside, only the edit is the change
    (path / "app" / "core.py").write_text(SRC.replace("1", "2"))
    assert _paths(_json(path, "changed")) == {"app/core.py"}
    reverify = _json(path, "reverify")
    assert {i["entity"]["path"] for i in reverify["data"]["items"]
            if i["reason"] == "changed"} == {"app/core.py"}
    assert not any("whole suite" in w for w in reverify["warnings"])


def test_the_mcp_json_is_the_users_once_they_edit_it(installed: FixtureRepo) -> None:
    path = installed.path
    config = json.loads((path / ".mcp.json").read_text())
    config["mcpServers"]["other"] = {"type": "stdio", "command": "other-mcp", "args": []}
    (path / ".mcp.json").write_text(json.dumps(config))
    assert ".mcp.json" in _paths(_json(path, "changed"))


def test_a_committed_mcp_json_with_our_entry_added_is_ours(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    team = {"mcpServers": {"docs": {"type": "stdio", "command": "docs-mcp", "args": []}}}
    repo.commit({"app/__init__.py": "", "app/core.py": SRC,
                 ".mcp.json": json.dumps(team, indent=2) + "\n"}, "one")
    _cli(repo.path, "install", "--shared-mcp")  # the team's file: asked for
    written = json.loads((repo.path / ".mcp.json").read_text())
    assert set(written["mcpServers"]) == {"docs", "warpline"}
    assert ".mcp.json" not in _paths(_json(repo.path, "changed"))


def test_an_mcp_json_no_install_recorded_is_the_users(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/__init__.py": "", "app/core.py": SRC}, "one")
    entry = {"type": "stdio", "command": "warpline-mcp", "args": []}
    (repo.path / ".mcp.json").write_text(json.dumps({"mcpServers": {"warpline": entry}}))
    assert ".mcp.json" in _paths(_json(repo.path, "changed"))


def test_the_reader_and_the_writer_agree_on_the_file() -> None:
    from warpline.service.shared import own_files
    from warpline.setup import mcp_config

    assert (own_files.MCP_FILE, own_files.SERVER_NAME) == (mcp_config.MCP_FILE,
                                                          mcp_config.SERVER_NAME)


def test_pytest_verify_records_a_pass_beside_the_mcp_json_install_wrote(
        installed: FixtureRepo) -> None:
    from tests.dispatchproject import run_pytest
    from tests.gitfixture import run_git

    (installed.path / ".gitignore").write_text("__pycache__/\n")
    run_git(installed.path, "add", ".gitignore")
    run_git(installed.path, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit",
            "-qm", "ignore bytecode")
    done = run_pytest(installed.path, "--warpline-verify", "test_pass")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verify_record test_pass" in done.stdout and "not recorded" not in done.stdout
