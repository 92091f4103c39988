"""``warpline install`` end to end: real git runs the hooks, the store catches up alone."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hookrepo import (
    GitRepo,
    cli,
    cli_json,
    ingested,
    reachable,
    reap_hook_processes,
    wait_caught_up,
)
from warpline.setup.hooks import HOOK_NAMES, MARKER
from warpline.store.db import store_path

SRC = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[GitRepo]:
    git_repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    git_repo.commit({"app/core.py": SRC}, "one")
    yield git_repo
    reap_hook_processes(tmp_path)


def _install(repo: GitRepo, *args: str) -> dict[str, Any]:
    code, report = cli_json("install", "--repo", str(repo.path), *args, env=repo.env())
    assert code == 0, report
    assert isinstance(report, dict)
    return report


def _managed_files(repo: GitRepo) -> dict[str, bytes]:
    paths = [repo.path / ".git" / "hooks" / name for name in HOOK_NAMES]
    paths += list((repo.path / ".git" / "hooks").glob("*.warpline-chained"))
    paths += [repo.path / ".mcp.json", repo.path / ".git" / "info" / "exclude",
              repo.path / ".weft" / "warpline" / "config.json",
              repo.path / ".weft" / "warpline" / ".gitignore",
              repo.path / ".weft" / "warpline" / "ingest.log"]
    return {str(p): p.read_bytes() for p in paths if p.exists()}


def test_commits_a_merge_and_a_rebase_are_ingested_without_any_command(repo: GitRepo) -> None:
    report = _install(repo)
    assert {a["component"] for a in report["actions"]} == {
        "ignore", "config", "mcp", "hooks", "backfill"}
    assert ingested(repo.path) == reachable(repo.path)  # the first backfill

    repo.commit({"app/core.py": SRC.replace("return 2", "return 22")}, "two")
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit({"app/extra.py": "def gamma():\n    return 3\n"}, "topic work")
    repo.git("checkout", "-q", "main")
    repo.commit({"app/core.py": SRC.replace("return 1", "return 11")}, "main work")
    repo.git("merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    merge = repo.head()
    wait_caught_up(repo.path)
    assert merge in ingested(repo.path)

    repo.git("checkout", "-q", "-b", "feature", "HEAD~1")
    repo.commit({"app/feature.py": "def delta():\n    return 4\n"}, "feature one")
    repo.commit({"app/feature.py": "def delta():\n    return 5\n"}, "feature two")
    repo.git("rebase", "-q", "main")
    rebased = repo.head()
    wait_caught_up(repo.path)
    assert rebased in ingested(repo.path)
    repo.git("commit", "-q", "--amend", "-m", "feature two, amended")  # post-rewrite
    wait_caught_up(repo.path)

    code, doctor = cli_json("doctor", "--repo", str(repo.path), env=repo.env())
    assert code == 0, doctor
    assert doctor["ok"] is True


def test_a_second_install_changes_nothing(repo: GitRepo) -> None:
    (repo.path / ".git" / "hooks" / "post-commit").write_text("#!/bin/sh\ntrue\n")
    (repo.path / ".git" / "hooks" / "post-commit").chmod(0o755)
    _install(repo)
    before = _managed_files(repo)
    again = _install(repo)
    assert again["changed"] is False
    assert {a["result"] for a in again["actions"]} == {"unchanged"}
    assert _managed_files(repo) == before


def test_a_foreign_hook_is_chained_and_still_runs(repo: GitRepo) -> None:
    hook = repo.path / ".git" / "hooks" / "post-commit"
    marker = repo.path.parent / "foreign-ran"
    foreign = f'#!/bin/sh\necho "$@" ran >> "{marker}"\n'
    hook.write_text(foreign)
    hook.chmod(0o755)
    report = _install(repo, "--no-backfill")
    chained = hook.with_name("post-commit.warpline-chained")
    assert chained.read_text() == foreign and os.access(chained, os.X_OK)
    assert MARKER in hook.read_text()
    assert any("runs first" in a["detail"] for a in report["actions"])

    repo.commit({"app/core.py": SRC + "\n\ndef z():\n    pass\n"}, "two")
    assert marker.read_text() == "ran\n"
    wait_caught_up(repo.path)


def test_core_hooks_path_is_honoured(repo: GitRepo) -> None:
    repo.git("config", "core.hooksPath", ".githooks")
    _install(repo, "--no-backfill")
    assert all((repo.path / ".githooks" / name).is_file() for name in HOOK_NAMES)
    assert not (repo.path / ".git" / "hooks" / "post-commit").exists()
    repo.commit({"app/core.py": SRC.replace("return 2", "return 3")}, "two")
    wait_caught_up(repo.path)


def test_hooks_in_a_linked_worktree_ingest_that_worktree(repo: GitRepo) -> None:
    _install(repo)
    linked = repo.path.parent / "linked"
    repo.git("worktree", "add", "-q", "-b", "side", str(linked))
    repo.commit({"app/side.py": "def s():\n    return 1\n"}, "side work", cwd=linked)
    wait_caught_up(linked)


def test_mcp_json_keeps_every_other_server(repo: GitRepo) -> None:
    original: dict[str, Any] = {"mcpServers": {"zeta": {"command": "zeta-mcp", "args": ["--x"]},
                               "alpha": {"type": "stdio", "command": "/opt/alpha"}},
                "someOtherKey": [1, 2]}
    (repo.path / ".mcp.json").write_text(json.dumps(original))
    _install(repo, "--mcp")
    config = json.loads((repo.path / ".mcp.json").read_text())
    assert list(config["mcpServers"]) == ["zeta", "alpha", "warpline"]
    assert config["mcpServers"]["zeta"] == original["mcpServers"]["zeta"]
    assert config["someOtherKey"] == [1, 2]
    entry = config["mcpServers"]["warpline"]
    assert entry["type"] == "stdio"
    # Portable: a command found on PATH, no machine path a teammate would not have.
    assert (entry["command"], entry["args"]) == ("warpline-mcp", [])
    assert shutil.which(entry["command"], path=repo.env()["PATH"])


OTHERS = ('{\n    "mcpServers": {\n        "zeta": { "command": "zeta-mcp",  "args": ["--x"] },'
          '\n        "alpha": {"type":"stdio","command":"/opt/alpha"}\n    },\n'
          '    "someOtherKey": [1,2]\n}\n')


def test_mcp_json_keeps_every_other_byte_of_an_untracked_file(repo: GitRepo) -> None:
    """Issue 34: another server's entry is never re-flowed (its layout, spacing, order)."""
    (repo.path / ".mcp.json").write_text(OTHERS)
    _install(repo, "--mcp", "--no-backfill")
    text = (repo.path / ".mcp.json").read_text()
    head = OTHERS[:OTHERS.index("\n    },")]
    assert text.startswith(head) and text.endswith('\n    },\n    "someOtherKey": [1,2]\n}\n')
    assert json.loads(text)["mcpServers"]["warpline"]["command"] == "warpline-mcp"
    # Our entry replaced in place on a change, the rest still byte for byte.
    changed = text.replace('"warpline-mcp"', '"old-warpline-mcp"')
    (repo.path / ".mcp.json").write_text(changed)
    _install(repo, "--mcp", "--no-backfill")
    assert (repo.path / ".mcp.json").read_text() == text


def test_a_tracked_mcp_json_is_left_alone_and_said_unless_asked(repo: GitRepo) -> None:
    (repo.path / ".mcp.json").write_text(OTHERS)
    repo.git("add", ".mcp.json")
    repo.git("commit", "-q", "-m", "team servers")
    report = _install(repo, "--mcp", "--no-backfill")
    [mcp] = [a for a in report["actions"] if a["component"] == "mcp"]
    assert mcp["result"] == "skipped" and "--shared-mcp" in mcp["detail"]
    assert (repo.path / ".mcp.json").read_text() == OTHERS
    report = _install(repo, "--mcp", "--no-backfill", "--shared-mcp")
    [mcp] = [a for a in report["actions"] if a["component"] == "mcp"]
    assert mcp["result"] == "updated"
    text = (repo.path / ".mcp.json").read_text()
    assert text.startswith(OTHERS[:OTHERS.index("\n    },")])
    assert "warpline" in json.loads(text)["mcpServers"]


def test_mcp_json_without_the_script_on_path_names_this_installation_absolutely(
        repo: GitRepo) -> None:
    """Never ``python -m warpline.mcp``: a client starting it from the repository root
    would import a committed ``warpline/`` first (issue 29)."""
    env = repo.env(PATH=os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                        if not shutil.which("warpline-mcp", path=p)))
    code, _ = cli_json("install", "--repo", str(repo.path), "--mcp", "--no-backfill", env=env)
    assert code == 0
    entry = json.loads((repo.path / ".mcp.json").read_text())["mcpServers"]["warpline"]
    assert os.path.isabs(entry["command"])
    assert entry["args"] in ([], ["-I", "-m", "warpline.mcp"])
    assert str(repo.path) not in (repo.path / ".mcp.json").read_text()


def test_an_unreadable_mcp_json_is_left_alone_and_reported(repo: GitRepo) -> None:
    (repo.path / ".mcp.json").write_text("{not json")
    code, report = cli_json("install", "--repo", str(repo.path), "--mcp", env=repo.env())
    assert code == 1
    results = {a["component"]: a["result"] for a in report["actions"]}
    assert results == {"config": "created", "mcp": "conflict", "backfill": "created"}
    assert (repo.path / ".mcp.json").read_text() == "{not json"


def test_component_flags_select_a_subset(repo: GitRepo) -> None:
    report = _install(repo, "--ignore", "--no-backfill")
    assert [a["component"] for a in report["actions"]] == ["ignore"]
    assert not (repo.path / ".git" / "hooks" / "post-commit").exists()
    assert not store_path(repo.path).exists()


def test_weft_state_never_shows_up_in_git_status(repo: GitRepo) -> None:
    _install(repo)
    assert "/.weft/" in (repo.path / ".git" / "info" / "exclude").read_text()
    status = repo.git("status", "--porcelain", "--ignored=no").stdout
    assert ".weft" not in status
    assert repo.git("status", "--porcelain").stdout.strip() == "?? .mcp.json"


def test_the_hook_never_fails_a_commit_when_warpline_is_broken(repo: GitRepo) -> None:
    _install(repo)
    hook = repo.path / ".git" / "hooks" / "post-commit"
    # 1. The store is corrupt: the commit succeeds, the failure is logged for doctor.
    path = store_path(repo.path)
    for sidecar in ("-wal", "-shm"):
        path.with_name(path.name + sidecar).unlink(missing_ok=True)
    path.write_bytes(b"not a database" * 100)
    repo.commit({"app/a.py": "x = 1\n"}, "with a corrupt store")
    log = repo.path / ".weft" / "warpline" / "ingest.log"
    _wait_for(lambda: log.exists() and '"ok": false' in log.read_text().splitlines()[-1])

    # 2. A PATH without warpline (or python): the hook names its executable absolutely.
    path.unlink()
    bare_path = os.pathsep.join(str(Path(p).parent) for p in (shutil.which("git"),) if p)
    repo.commit({"app/b.py": "x = 2\n"}, "no warpline on PATH",
                env=repo.env(PATH=bare_path))
    wait_caught_up(repo.path)

    # 3. The executable the hook names is gone: the commit succeeds, the hook logs it.
    text = hook.read_text()
    hook.write_text(text.replace(f"exe={_exe_of(text)}", "exe=/nonexistent/warpline"))
    before = repo.head()
    repo.commit({"app/c.py": "x = 3\n"}, "warpline uninstalled")
    assert repo.head() != before
    last = json.loads(log.read_text().splitlines()[-1])
    assert last["ok"] is False and "post-commit hook (exe=) is missing" in last["error"]


def _exe_of(hook_text: str) -> str:
    return next(line for line in hook_text.splitlines() if line.startswith("exe="))[4:]


def _wait_for(condition: object, timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def test_hooks_are_executable_posix_scripts(repo: GitRepo) -> None:
    _install(repo, "--hooks", "--no-backfill")
    for name in HOOK_NAMES:
        hook = repo.path / ".git" / "hooks" / name
        assert hook.read_text().startswith("#!/bin/sh\n")
        assert hook.stat().st_mode & stat.S_IXUSR
        assert f"--hook {name}" in hook.read_text()


def test_install_prints_a_table_of_actions(repo: GitRepo) -> None:
    done = cli("install", "--repo", str(repo.path), "--no-backfill", env=repo.env())
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["RESULT", "COMPONENT", "TARGET", "DETAIL"]
    assert "\x1b[" not in done.stdout


def test_install_outside_a_repository_is_invalid_repo(tmp_path: Path) -> None:
    code, error = cli_json("install", "--repo", str(tmp_path))
    assert code == 1 and error["error_code"] == "invalid_repo"
    assert not (tmp_path / ".weft").exists() and not (tmp_path / ".mcp.json").exists()


def test_the_setup_exports_are_pinned_and_load_lazily() -> None:
    import warpline.setup as setup
    from warpline.cli.setup_cmds import _COMPONENT_HELP
    from warpline.setup.install import COMPONENTS

    assert setup.__all__ == ["Action", "COMPONENTS", "Check", "DoctorReport", "InstallReport",
                             "hook_ingest", "install", "run_doctor", "session_context"]
    assert all(getattr(setup, name) is not None for name in setup.__all__)
    assert tuple(_COMPONENT_HELP) == COMPONENTS  # the CLI's flags, in install's order


def test_ignore_rules_already_in_place_are_not_added_twice(repo: GitRepo) -> None:
    repo.commit({".gitignore": ".weft/\n"}, "ignore weft")
    report = _install(repo, "--ignore", "--no-backfill")
    assert report["actions"][0]["result"] == "unchanged"
    assert "/.weft/" not in (repo.path / ".git" / "info" / "exclude").read_text()


def test_a_team_rule_that_re_includes_weft_is_respected_and_install_stays_idempotent(
        repo: GitRepo) -> None:
    repo.commit({".gitignore": "!.weft/\n"}, "track weft")
    _install(repo, "--ignore", "--no-backfill")
    exclude = (repo.path / ".git" / "info" / "exclude").read_text()
    again = _install(repo, "--ignore", "--no-backfill")
    assert again["actions"][0]["result"] == "unchanged"
    assert (repo.path / ".git" / "info" / "exclude").read_text() == exclude
