"""``warpline doctor``: green when warpline works here, red (exit 1) when it does not,
and ``--fix`` repairs what can be repaired."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hookrepo import GitRepo, cli, cli_json, reap_hook_processes, wait_caught_up
from warpline.store.db import store_path

SRC = "def alpha():\n    return 1\n"


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[GitRepo]:
    git_repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    git_repo.commit({"app/core.py": SRC}, "one")
    code, report = cli_json("install", "--repo", str(git_repo.path), env=git_repo.env())
    assert code == 0, report
    yield git_repo
    reap_hook_processes(tmp_path)


def _doctor(repo: GitRepo, *args: str, **env: str) -> tuple[int, dict[str, Any]]:
    code, report = cli_json("doctor", "--repo", str(repo.path), *args, env=repo.env(**env))
    return code, report


def _checks(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["checks"]}


def test_doctor_is_green_after_install(repo: GitRepo) -> None:
    code, report = _doctor(repo)
    assert code == 0 and report["ok"] is True
    checks = _checks(report)
    for name in ("hooks", "mcp", "store", "ingest"):
        assert checks[name]["status"] == "ok" and checks[name]["required"], checks[name]
    assert checks["behind"]["status"] == "ok"
    assert "tool names" in checks["mcp"]["detail"]  # the server was spawned and answered
    assert {checks["loomweave"]["required"], checks["filigree"]["required"]} == {False}


def test_a_missing_hook_turns_doctor_red_and_fix_reinstalls_it(repo: GitRepo) -> None:
    (repo.path / ".git" / "hooks" / "post-merge").unlink()
    code, report = _doctor(repo)
    assert code == 1 and _checks(report)["hooks"]["status"] == "fail"
    assert "post-merge is missing" in _checks(report)["hooks"]["detail"]

    code, report = _doctor(repo, "--fix")
    assert code == 0, report
    assert {"component": "hooks", "result": "created"} in [
        {"component": a["component"], "result": a["result"]} for a in report["fixed"]]
    assert (repo.path / ".git" / "hooks" / "post-merge").is_file()


def test_a_hook_whose_executable_is_gone_is_red(repo: GitRepo) -> None:
    hook = repo.path / ".git" / "hooks" / "post-commit"
    text = hook.read_text()
    exe = next(line for line in text.splitlines() if line.startswith("exe="))
    hook.write_text(text.replace(exe, "exe=/nonexistent/bin/warpline"))
    code, report = _doctor(repo)
    assert code == 1
    assert "/nonexistent/bin/warpline" in _checks(report)["hooks"]["detail"]


def test_a_corrupt_store_is_red_and_fix_rebuilds_it(repo: GitRepo) -> None:
    path = store_path(repo.path)
    for sidecar in ("-wal", "-shm"):
        path.with_name(path.name + sidecar).unlink(missing_ok=True)
    path.write_bytes(b"this is not a sqlite database" * 100)
    code, report = _doctor(repo)
    assert code == 1 and _checks(report)["store"]["status"] == "fail"

    code, report = _doctor(repo, "--fix")
    assert code == 0, report
    assert [p.name for p in path.parent.glob("warpline.db.broken-*")]  # kept for a post-mortem
    wait_caught_up(repo.path)


def test_a_store_from_a_newer_warpline_is_red_and_left_alone(repo: GitRepo) -> None:
    path = store_path(repo.path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 999")
    code, report = _doctor(repo, "--fix")
    assert code == 1
    assert "newer warpline" in _checks(report)["store"]["detail"]
    assert _checks(report)["store"]["fix"] == "pip install -U warpline"


def test_a_failed_background_ingest_is_red_until_an_ingest_succeeds(repo: GitRepo) -> None:
    log = repo.path / ".weft" / "warpline" / "ingest.log"
    with log.open("a") as handle:
        handle.write(json.dumps({"at": "2026-01-01T00:00:00Z", "hook": "post-commit",
                                 "ok": False, "error": "OSError: disk full"}) + "\n")
    code, report = _doctor(repo)
    assert code == 1 and "disk full" in _checks(report)["ingest"]["detail"]
    code, report = _doctor(repo, "--fix")
    assert code == 0, report
    assert "since resolved" in _checks(report)["ingest"]["detail"]


def test_an_unresolved_ingest_failure_in_the_store_is_red(repo: GitRepo) -> None:
    with sqlite3.connect(store_path(repo.path)) as conn:
        conn.execute("INSERT INTO ingest_failures (sha, error, failed_at) VALUES (?, ?, ?)",
                     ("f" * 40, "ValueError: bad blob", 1))
    code, report = _doctor(repo)
    assert code == 1 and "bad blob" in _checks(report)["ingest"]["detail"]


def test_a_missing_mcp_entry_is_red_and_fix_registers_it(repo: GitRepo) -> None:
    (repo.path / ".mcp.json").write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    code, report = _doctor(repo)
    assert code == 1 and _checks(report)["mcp"]["status"] == "fail"
    code, report = _doctor(repo, "--fix")
    assert code == 0, report
    servers = json.loads((repo.path / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"other", "warpline"}


def test_a_store_behind_head_is_a_warning_that_fix_catches_up(repo: GitRepo) -> None:
    for name in ("post-commit", "post-merge", "post-rewrite"):
        (repo.path / ".git" / "hooks" / name).unlink()
    repo.commit({"app/core.py": SRC.replace("1", "2")}, "two")
    code, report = _doctor(repo)
    assert _checks(report)["behind"]["status"] == "warn"
    assert "1 commits behind" in _checks(report)["behind"]["detail"]
    code, report = _doctor(repo, "--fix")
    assert code == 0 and _checks(report)["behind"]["status"] == "ok"


def test_unreachable_optional_peers_never_fail_the_verdict(repo: GitRepo) -> None:
    code, report = _doctor(repo, FILIGREE_API_URL="http://127.0.0.1:9",
                           WARPLINE_LOOMWEAVE_COMMAND="/nonexistent/loomweave")
    assert code == 0
    assert _checks(report)["filigree"]["status"] == "unavailable"
    assert _checks(report)["loomweave"]["status"] == "unavailable"


@pytest.mark.filigree
def test_a_reachable_filigree_is_reported_ok(repo: GitRepo, tmp_path: Path) -> None:
    from tests.filigree_server import filigree_dashboard, require_filigree

    require_filigree()
    with filigree_dashboard(tmp_path / "filigree") as server:
        code, report = _doctor(repo, FILIGREE_API_URL=server.base_url)
    assert code == 0 and _checks(report)["filigree"]["status"] == "ok"


def test_doctor_prints_a_readable_verdict(repo: GitRepo) -> None:
    done = cli("doctor", "--repo", str(repo.path), env=repo.env())
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["STATUS", "CHECK", "DETAIL"]
    assert lines[-1] == "healthy"


def test_status_words_are_coloured_only_on_a_terminal_without_no_color(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from warpline.cli.setup_cmds import _table

    rows = [("ok", "hooks", "fine"), ("fail", "store", "broken")]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = _table(("STATUS", "CHECK", "DETAIL"), rows)
    assert "\x1b[32mok\x1b[0m" in coloured and "\x1b[31mfail\x1b[0m" in coloured
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in _table(("STATUS", "CHECK", "DETAIL"), rows)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    monkeypatch.delenv("NO_COLOR")
    assert "\x1b[" not in _table(("STATUS", "CHECK", "DETAIL"), rows)
