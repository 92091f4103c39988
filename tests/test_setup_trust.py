"""Nothing from the repository runs, nothing is written outside it (``warpline.setup.trust``).

Each case is a real repository committed and cloned with real ``git``, driven through the
real ``warpline`` CLI in a fresh process. Code execution is proven absent with marker
files: the repository's own script would create one.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hookrepo import SRC, GitRepo, cli, cli_json
from tests.hookrepo import clone as _clone
from warpline.mcp.client import McpProcess, initialize
from warpline.setup.executables import command_for
from warpline.setup.trust import isolated, resolve_in, trusted_command


def _marker_script(marker: Path) -> str:
    return f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\nexit 0\n"


def _commit_files(repo: GitRepo, files: dict[str, str], *, executable: tuple[str, ...] = (),
                  links: dict[str, str] | None = None) -> None:
    for name, text in files.items():
        path = repo.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if name in executable:
            path.chmod(0o755)
    for name, target in (links or {}).items():
        path = repo.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
    repo.git("add", "-A", "-f")
    repo.git("commit", "-q", "-m", "files")


def _mcp_entry(command: str, args: list[str]) -> str:
    return json.dumps({"mcpServers": {"warpline": {"type": "stdio", "command": command,
                                                   "args": args}}})


def _own_mcp() -> str:
    own = command_for("warpline-mcp")
    if len(own) != 1:
        pytest.skip("no warpline-mcp console script beside this interpreter")
    return own[0]


def _checks(report: dict[str, object]) -> dict[str, dict[str, str]]:
    checks = report["checks"]
    assert isinstance(checks, list)
    return {c["name"]: c for c in checks}


# -- item 1: a relative command is judged where it runs ----------------------------------------

@pytest.mark.parametrize("fix", [False, True])
def test_doctor_never_runs_a_relative_command_that_names_the_repositorys_script(
        tmp_path: Path, fix: bool) -> None:
    """In the caller's directory ``venv/bin/warpline-mcp`` is the real server; in the
    repository, where doctor starts it, it is the repository's script."""
    marker = tmp_path / "MARKER"
    upstream = GitRepo(tmp_path / "upstream", tmp_path / "home")
    upstream.commit({"app/core.py": SRC}, "one")
    _commit_files(upstream, {".mcp.json": _mcp_entry("venv/bin/warpline-mcp", []),
                             "venv/bin/warpline-mcp": _marker_script(marker)},
                  executable=("venv/bin/warpline-mcp",))
    clone = _clone(upstream, tmp_path / "clone")
    caller = tmp_path / "caller"
    (caller / "venv" / "bin").mkdir(parents=True)
    os.symlink(_own_mcp(), caller / "venv" / "bin" / "warpline-mcp")

    args = ["doctor", "--repo", str(clone)] + (["--fix"] if fix else [])
    done = subprocess.run([sys.executable, "-m", "warpline.cli", *args, "--json"], cwd=caller,
                          env=upstream.env(), capture_output=True, text=True, timeout=600,
                          check=False)
    assert not marker.exists()
    report = json.loads(done.stdout)
    mcp = _checks(report)["mcp"]
    if fix:  # the entry was rewritten to this installation's server, which answers
        assert mcp["status"] == "ok", mcp
        entry = json.loads((clone / ".mcp.json").read_text())["mcpServers"]["warpline"]
        assert entry["command"] != "venv/bin/warpline-mcp"
    else:
        assert mcp["status"] == "fail" and "venv/bin/warpline-mcp" in mcp["detail"], mcp


def test_resolving_a_command_runs_nothing_and_follows_the_working_directory(
        tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    repo = tmp_path / "repo"
    (repo / "bin").mkdir(parents=True)
    (repo / "bin" / "tool").write_text(_marker_script(marker))
    (repo / "bin" / "tool").chmod(0o755)
    assert resolve_in(["bin/tool", "x"], repo) == [str(repo / "bin" / "tool"), "x"]
    assert resolve_in(["bin/tool"], tmp_path) is None
    own = _own_mcp()
    assert trusted_command(["bin/tool"], [[own]], repo) is None
    assert trusted_command([own], [[own]], repo) == [own]
    assert not marker.exists()


# -- item 2: python -m never imports the repository's package ----------------------------------

def _path_without(script: str) -> str:
    return os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if not shutil.which(script, path=p))


def _poisoned_package(marker: Path) -> dict[str, str]:
    touch = f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
    return {"warpline/__init__.py": touch, "warpline/mcp/__init__.py": touch,
            "warpline/mcp/__main__.py": touch, "warpline/cli/__init__.py": touch,
            "warpline/cli/__main__.py": touch}


@pytest.mark.parametrize("fix", [False, True])
def test_doctor_never_runs_a_committed_python_dash_m_entry(tmp_path: Path, fix: bool) -> None:
    marker = tmp_path / "MARKER"
    upstream = GitRepo(tmp_path / "upstream", tmp_path / "home")
    upstream.commit({"app/core.py": SRC}, "one")
    _commit_files(upstream, {".mcp.json": _mcp_entry("python", ["-m", "warpline.mcp"]),
                             **_poisoned_package(marker)})
    clone = _clone(upstream, tmp_path / "clone")
    # Without the script on PATH, install's entry used to be exactly this one.
    python = _interpreter_without_scripts(tmp_path)
    env = upstream.env(PATH=f"{python.parent}{os.pathsep}{_path_without('warpline-mcp')}")
    args = ["doctor", "--repo", str(clone)] + (["--fix"] if fix else [])
    _, report = cli_json(*args, env=env)
    assert not marker.exists()
    mcp = _checks(report)["mcp"]
    assert mcp["status"] == ("ok" if fix else "fail"), mcp


def test_a_recorded_python_dash_m_without_isolation_is_never_trusted(tmp_path: Path) -> None:
    assert not isolated([sys.executable, "-m", "warpline.mcp"])
    assert isolated([sys.executable, "-I", "-m", "warpline.mcp"])
    plain = [sys.executable, "-m", "warpline.mcp"]
    assert trusted_command(plain, [plain], tmp_path) is None


def _interpreter_without_scripts(tmp_path: Path) -> Path:
    """This interpreter reached through a directory holding no console script, so the
    fallback form is what ``command_for`` gives."""
    alone = tmp_path / "interp"
    alone.mkdir()
    python = alone / "python"
    os.symlink(os.path.realpath(sys.executable), python)
    return python


def test_the_entry_install_writes_without_the_script_never_imports_from_the_repository(
        tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.commit({"app/core.py": SRC}, "one")
    _commit_files(repo, _poisoned_package(marker))
    python = _interpreter_without_scripts(tmp_path)
    env = repo.env(PATH=_path_without("warpline-mcp"))
    probe = subprocess.run([str(python), "-I", "-c", "import warpline, sys; "
                            "print(warpline.__file__)"], capture_output=True, text=True,
                           env=env, cwd=tmp_path, check=False, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"this interpreter does not run through a link: {probe.stderr[-200:]}")
    done = subprocess.run([str(python), "-m", "warpline.cli", "install", "--repo",
                           str(repo.path), "--mcp", "--no-backfill", "--json"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, check=False,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    entry = json.loads((repo.path / ".mcp.json").read_text())["mcpServers"]["warpline"]
    command = [entry["command"], *entry["args"]]
    assert os.path.isabs(command[0]) and isolated(command), command
    # An MCP client starts it with the repository as its working directory.
    with McpProcess(command, cwd=repo.path, env=env, timeout=60) as server:
        reply = initialize(server)
    assert reply["result"]["serverInfo"]["name"] == "warpline"
    assert not marker.exists()


# -- item 4: nothing is written outside the repository ------------------------------------------

def _husky_clone(tmp_path: Path) -> tuple[GitRepo, Path, Path]:
    """A clone committing ``.githooks -> ../outside`` with ``core.hooksPath=.githooks``."""
    upstream = GitRepo(tmp_path / "upstream", tmp_path / "home")
    upstream.commit({"app/core.py": SRC}, "one")
    _commit_files(upstream, {}, links={".githooks": "../outside"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "post-commit").write_text("#!/bin/sh\necho theirs\n")
    clone = _clone(upstream, tmp_path / "clone")
    upstream.git("config", "core.hooksPath", ".githooks", cwd=clone)
    return upstream, clone, outside


def test_install_never_writes_hooks_through_a_committed_link_out_of_the_repository(
        tmp_path: Path) -> None:
    upstream, clone, outside = _husky_clone(tmp_path)
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    done = cli("install", "--repo", str(clone), "--json", env=upstream.env())
    payload = json.loads(done.stdout)
    assert done.returncode == 1
    assert payload["error_code"] == "store_unsafe"
    assert payload["details"]["value"].endswith(".githooks")
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before
    assert not (clone / ".mcp.json").exists()  # refused before the first write


def test_doctor_reports_the_escaping_hooks_link_and_fix_leaves_the_outside_alone(
        tmp_path: Path) -> None:
    upstream, clone, outside = _husky_clone(tmp_path)
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    code, report = cli_json("doctor", "--repo", str(clone), env=upstream.env())
    assert code == 1
    assert _checks(report)["hooks"]["status"] == "fail"
    _, report = cli_json("doctor", "--repo", str(clone), "--fix", env=upstream.env())
    assert _checks(report)["hooks"]["status"] != "ok"
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before


def test_a_hooks_link_that_stays_inside_the_repository_is_used(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.commit({"app/core.py": SRC}, "one")
    _commit_files(repo, {"tools/hooks/.keep": ""}, links={".githooks": "tools/hooks"})
    repo.git("config", "core.hooksPath", ".githooks")
    code, report = cli_json("install", "--repo", str(repo.path), "--no-backfill",
                            env=repo.env())
    assert code == 0, report
    assert (repo.path / "tools" / "hooks" / "post-commit").is_file()


def test_an_mcp_json_link_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.commit({"app/core.py": SRC}, "one")
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    _commit_files(repo, {}, links={".mcp.json": str(target)})
    done = cli("install", "--repo", str(repo.path), "--mcp", "--no-backfill", "--json",
               env=repo.env())
    assert done.returncode == 1
    assert json.loads(done.stdout)["error_code"] == "store_unsafe"
    assert target.read_text() == "{}"
    assert (repo.path / ".mcp.json").is_symlink()


def test_an_exclude_file_reached_through_a_link_out_of_the_git_dir_is_refused(
        tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.commit({"app/core.py": SRC}, "one")
    outside = tmp_path / "info-outside"
    outside.mkdir()
    shutil.rmtree(repo.path / ".git" / "info", ignore_errors=True)
    os.symlink(outside, repo.path / ".git" / "info")
    done = cli("install", "--repo", str(repo.path), "--no-backfill", "--json", env=repo.env())
    assert done.returncode == 1
    assert json.loads(done.stdout)["error_code"] == "store_unsafe"
    assert list(outside.iterdir()) == []
