"""``warpline ci`` in simulated GitHub Actions and GitLab CI jobs: real clones of a bare
"remote" in temp dirs, the forge's environment variables set as the runner would set them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo, run_git
from warpline.registry import call_tool

SRC = "def alpha():\n    return 1\n\n\ndef beta():\n    return alpha()\n"
TEST = "from app.core import beta\n\n\ndef test_beta():\n    assert beta() == 1\n"


def _git(cwd: Path, *args: str) -> str:
    return run_git(cwd, *args).strip()


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment minus any real CI variables, plus the simulated ones."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GITLAB_", "CI_", "RUNNER_")) and k != "CI"}
    return {**env, "NO_COLOR": "1", **extra}


def _ci(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", "ci", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=180)


def _job_tests(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The job's steps before a record, as docs/ci.md has them: the report (it creates the
    store, so pytest leaves a receipt), then the tests."""
    report = _ci(cwd, env, "--markdown", str(cwd.parent / f"{cwd.name}-report.md"))
    assert report.returncode == 0, report.stderr
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], cwd=cwd, env={**env, "PYTHONPATH": str(cwd)},
                          capture_output=True, text=True, timeout=180)


@pytest.fixture()
def forge(tmp_path: Path) -> dict[str, Any]:
    """A bare remote with main and a pushed feature branch; a CI checkout of the feature."""
    origin = FixtureRepo(tmp_path / "origin")
    origin.commit({"app/__init__.py": "", "app/core.py": SRC, "tests/test_core.py": TEST},
                  message="one")
    remote = tmp_path / "remote.git"
    _git(tmp_path, "clone", "-q", "--bare", str(origin.path), str(remote))
    dev = tmp_path / "dev"
    _git(tmp_path, "clone", "-q", str(remote), str(dev))
    for key, value in (("user.name", "Dev"), ("user.email", "dev@example.com")):
        _git(dev, "config", key, value)
    _git(dev, "checkout", "-q", "-b", "feature")
    (dev / "app" / "core.py").write_text(SRC.replace("return 1", "return 1 + 0"))
    _git(dev, "commit", "-qam", "feature: touch alpha")
    _git(dev, "push", "-q", "origin", "feature")
    ci = tmp_path / "ci"
    _git(tmp_path, "clone", "-q", "--branch", "feature", str(remote), str(ci))
    return {"remote": remote, "dev": dev, "ci": ci, "head": _git(dev, "rev-parse", "HEAD"),
            "base": _git(dev, "rev-parse", "origin/main"), "tmp": tmp_path}


def _github_env(forge: dict[str, Any], **extra: str) -> dict[str, str]:
    return _clean_env(**{"GITHUB_ACTIONS": "true", "CI": "true",
                         "GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main",
                         "GITHUB_HEAD_REF": "feature", "GITHUB_SHA": forge["head"],
                         "GITHUB_RUN_ID": "4242",
                         "GITHUB_STEP_SUMMARY": str(forge["tmp"] / "step-summary.md"),
                         **extra})


def _gitlab_env(forge: dict[str, Any], **extra: str) -> dict[str, str]:
    return _clean_env(**{"GITLAB_CI": "true", "CI": "true",
                         "CI_PIPELINE_SOURCE": "merge_request_event",
                         "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                         "CI_COMMIT_SHA": forge["head"], "CI_JOB_ID": "77", **extra})


def test_github_pull_request_report_writes_markdown_and_the_step_summary(
        forge: dict[str, Any]) -> None:
    out = forge["tmp"] / "reverify.md"
    (forge["tmp"] / "step-summary.md").write_text("earlier step\n")
    done = _ci(forge["ci"], _github_env(forge), "--markdown", str(out), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ci"]["provider"] == "github"
    assert (report["ci"]["base_sha"], report["ci"]["head_sha"]) == (forge["base"], forge["head"])
    locators = {i["entity"]["locator"] for i in report["reverify"]["data"]["items"]}
    assert "python:function:app.core.alpha" in locators
    markdown = out.read_text()
    assert markdown.startswith("## warpline: what to re-verify")
    summary = (forge["tmp"] / "step-summary.md").read_text()
    assert summary.startswith("earlier step\n") and markdown in summary
    assert report["verification_summary"]["fresh"] == 0


def test_record_pushes_and_the_next_job_and_the_developer_see_it_fresh(
        forge: dict[str, Any]) -> None:
    env = _github_env(forge)
    assert _job_tests(forge["ci"], env).returncode == 0
    recorded = _ci(forge["ci"], env, "--record", "test_pass", "--json")
    assert recorded.returncode == 0, recorded.stderr
    body = json.loads(recorded.stdout)
    assert body["record"]["data"]["commit_sha"] == forge["head"]
    assert body["record"]["data"]["scope"] == "whole_suite"
    assert body["record"]["data"]["actor"] == "github-actions:4242"
    assert body["sync"]["pushed"] is True

    # A new job on a fresh checkout: the notes come with `warpline ci`.
    second = forge["tmp"] / "ci2"
    _git(forge["tmp"], "clone", "-q", "--branch", "feature", str(forge["remote"]), str(second))
    done = _ci(second, env, "--markdown", str(forge["tmp"] / "r2.md"), "--json")
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)["verification_summary"]
    assert counts["fresh"] > 0 and counts["unverified"] == 0

    # The developer fetches the notes and sees the pass too.
    synced = subprocess.run([sys.executable, "-m", "warpline.cli", "sync"], cwd=forge["dev"],
                            env=_clean_env(), capture_output=True, text=True, timeout=120)
    assert synced.returncode == 0, synced.stderr
    env_dev = call_tool("reverify", {"repo": str(forge["dev"]), "rev_range": "origin/main..HEAD"})
    assert {i["verification"]["state"] for i in env_dev["data"]["items"]} == {"fresh"}


def test_gitlab_merge_request_range_and_actor(forge: dict[str, Any]) -> None:
    done = _ci(forge["ci"], _gitlab_env(forge), "--markdown",
               str(forge["tmp"] / "gl.md"), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ci"]["provider"] == "gitlab"
    assert report["ci"]["rev_range"] == f"{forge['base']}..{forge['head']}"
    assert report["step_summary"] is None
    by_sha = _gitlab_env(forge, CI_MERGE_REQUEST_DIFF_BASE_SHA=forge["base"])
    assert json.loads(_ci(forge["ci"], by_sha, "--markdown", str(forge["tmp"] / "g2.md"),
                          "--json").stdout)["ci"]["base_sha"] == forge["base"]
    assert _job_tests(forge["ci"], _gitlab_env(forge)).returncode == 0
    recorded = _ci(forge["ci"], _gitlab_env(forge), "--record", "ci_pass", "--json")
    assert recorded.returncode == 0, recorded.stderr
    assert json.loads(recorded.stdout)["record"]["data"]["actor"] == "gitlab-ci:77"
    assert _git(forge["remote"], "notes", "--ref=refs/notes/warpline", "list")


def test_github_push_event_uses_the_before_commit(forge: dict[str, Any]) -> None:
    event = forge["tmp"] / "event.json"
    event.write_text(json.dumps({"before": forge["base"], "after": forge["head"]}))
    env = _github_env(forge, GITHUB_EVENT_NAME="push", GITHUB_EVENT_PATH=str(event))
    env.pop("GITHUB_BASE_REF")
    done = _ci(forge["ci"], env, "--markdown", str(forge["tmp"] / "p.md"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ci"]["base_sha"] == forge["base"]


def test_base_flag_works_anywhere_and_no_base_names_the_field(forge: dict[str, Any]) -> None:
    local = _ci(forge["ci"], _clean_env(), "--base", "origin/main", "--no-fetch",
                "--markdown", str(forge["tmp"] / "l.md"), "--selection",
                str(forge["tmp"] / "sel.txt"))
    assert local.returncode == 0, local.stderr
    assert local.stdout.startswith("local: origin/main..HEAD")
    assert "tests to run:" in local.stdout
    selection = (forge["tmp"] / "sel.txt").read_text().splitlines()
    assert selection and all(line in local.stdout for line in selection)
    assert any("tests/test_core.py" in line for line in selection), local.stdout
    missing = _ci(forge["ci"], _clean_env(), "--json")
    assert missing.returncode == 1
    error = json.loads(missing.stdout)
    assert (error["error_code"], error["rejected_field"]) == ("invalid_argument", "base")


def test_a_shallow_pull_request_checkout_fetches_what_it_lacks(forge: dict[str, Any]) -> None:
    shallow = forge["tmp"] / "shallow"
    _git(forge["tmp"], "clone", "-q", "--depth", "1", "--branch", "feature",
         f"file://{forge['remote']}", str(shallow))
    done = _ci(shallow, _github_env(forge), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout)["ci"]
    assert (found["base_sha"], found["head_sha"]) == (forge["base"], forge["head"])
    assert found["fetched"]
    # A remote that cannot be reached: the report says why and the job goes on (exit 0).
    cut = forge["tmp"] / "cut"
    _git(forge["tmp"], "clone", "-q", "--depth", "1", "--branch", "feature",
         f"file://{forge['remote']}", str(cut))
    _git(cut, "remote", "set-url", "origin", str(forge["tmp"] / "gone.git"))
    done = _ci(cut, _github_env(forge), "--json", "--markdown", str(forge["tmp"] / "cut.md"))
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ci"] is None and report["error"]["error_code"] == "invalid_rev_range"
    assert report["error"]["details"]["fetch"]
    assert "no re-verify report" in (forge["tmp"] / "cut.md").read_text()


def test_a_github_pull_request_records_its_head_not_the_merge_commit(
        forge: dict[str, Any]) -> None:
    dev, ci = forge["dev"], forge["ci"]
    _git(dev, "checkout", "-q", "main")
    (dev / "README").write_text("main moved on\n")
    _git(dev, "add", "README")
    _git(dev, "commit", "-qm", "main: readme")
    _git(dev, "push", "-q", "origin", "main")
    _git(ci, "fetch", "-q", "origin")
    _git(ci, "config", "user.name", "runner")
    _git(ci, "config", "user.email", "runner@example.com")
    _git(ci, "checkout", "-q", "--detach")
    _git(ci, "merge", "-q", "--no-ff", "--no-edit", "origin/main")  # the runner's merge ref
    merge = _git(ci, "rev-parse", "HEAD")
    event = forge["tmp"] / "pr.json"
    event.write_text(json.dumps({"pull_request": {"head": {"sha": forge["head"]}}}))
    env = _github_env(forge, GITHUB_SHA=merge, GITHUB_EVENT_PATH=str(event))
    assert _job_tests(ci, env).returncode == 0
    done = _ci(ci, env, "--record", "test_pass", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["record"]["data"]["commit_sha"] == forge["head"] != merge
