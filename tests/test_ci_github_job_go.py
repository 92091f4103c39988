"""A GitHub Actions ``pull_request`` job end to end for a Go module (issue 37), on real git
and the real Go toolchain, as ``test_ci_github_job.py`` does for pytest: a bare remote in a
temp dir, the default branch's job recording the map and its pass and pushing both, then
a pull request with a bug, checked out as ``actions/checkout`` checks out the merge ref.

What it proves: the map recorded on main travels to the PR job (``warpline ci`` fetches
it); the PR job's selection holds the failing test and runs in ``go test``'s own syntax;
``warpline run-tests --select`` (no range: the job's) fails, leaves its receipt, and
``warpline ci --record`` refuses to record a pass: nothing on the remote says it passed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.gitfixture import run_git
from tests.gofixture import FILES, go_env, needs_go, write
from tests.test_ci_github_job import _env

pytestmark = needs_go

ROOT_MODULE = {k: v for k, v in FILES.items() if not k.startswith("tools/")}
SUB = "go:function:example.com/demo/calc.Sub"


def _git(cwd: Path, *args: str) -> str:
    return run_git(cwd, *args).strip()


def _go_env(**extra: str) -> dict[str, str]:
    env = _env(**extra)
    toolchain = go_env()
    env.update({k: toolchain[k] for k in ("GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GOWORK")})
    return env


def _warpline(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def _notes(remote: Path) -> str:
    if not _git(remote, "for-each-ref", "refs/notes/warpline"):
        return ""
    listed = _git(remote, "notes", "--ref=refs/notes/warpline", "list")
    return "\n".join(_git(remote, "notes", "--ref=refs/notes/warpline", "show", line.split()[1])
                     for line in listed.splitlines())


def _checkout(tmp: Path, remote: Path, name: str, fetch: list[str], ref: str) -> Path:
    ck = tmp / name
    ck.mkdir()
    _git(ck, "init", "-q")
    _git(ck, "remote", "add", "origin", f"file://{remote}")
    _git(ck, "-c", "protocol.version=2", "fetch", "--no-tags", "--prune", "--depth=1",
         "origin", *fetch)
    _git(ck, "checkout", "-q", "--force", ref)
    _git(ck, "config", "user.name", "github-actions")
    _git(ck, "config", "user.email", "actions@example.com")
    return ck


def test_a_pull_request_job_selects_the_failing_go_test_and_records_no_pass(
        tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    dev = tmp_path / "dev"
    _git(tmp_path, "clone", "-q", str(remote), str(dev))
    _git(dev, "config", "user.name", "Dev")
    _git(dev, "config", "user.email", "dev@example.com")
    _git(dev, "checkout", "-q", "-b", "main")
    write(dev, ROOT_MODULE)
    _git(dev, "add", "-A")
    _git(dev, "commit", "-qm", "calc")
    _git(dev, "push", "-q", "origin", "main")
    base = _git(dev, "rev-parse", "HEAD")

    # The default branch's push job: record the map, back a pass with its receipt, push.
    main = _checkout(tmp_path, remote, "main-job", [f"+{base}:refs/remotes/origin/main"], base)
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"before": "0" * 40, "after": base}))
    push_env = _go_env(GITHUB_ACTIONS="true", CI="true", GITHUB_EVENT_NAME="push",
                       GITHUB_EVENT_PATH=str(event), GITHUB_SHA=base, GITHUB_RUN_ID="main-1")
    recorded = _warpline(main, push_env, "record-tests", "--json")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    passed = _warpline(main, push_env, "ci", "--record", "test_pass", "--json")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert json.loads(passed.stdout)["record"]["data"]["scope"] == "whole_suite"
    assert _git(remote, "for-each-ref", "refs/warpline/testmaps")  # the map travelled

    # A pull request with a bug in calc.Sub.
    _git(dev, "checkout", "-q", "-b", "bug")
    (dev / "calc/calc.go").write_text(FILES["calc/calc.go"].replace("a - b", "a - b + 1"))
    _git(dev, "commit", "-qam", "bug: Sub")
    head = _git(dev, "rev-parse", "HEAD")
    _git(dev, "push", "-q", "origin", "bug")
    _git(dev, "checkout", "-q", "--detach", "main")
    _git(dev, "merge", "-q", "--no-ff", "-m", f"Merge {head} into {base}", head)
    merge = _git(dev, "rev-parse", "HEAD")
    _git(dev, "push", "-q", "origin", f"{head}:refs/pull/1/head", f"{merge}:refs/pull/1/merge")
    ck = _checkout(tmp_path, remote, "pr-job", [f"+{merge}:refs/remotes/pull/1/merge"],
                   "refs/remotes/pull/1/merge")
    pr_event = tmp_path / "pr.json"
    pr_event.write_text(json.dumps({
        "action": "synchronize", "number": 1,
        "pull_request": {"number": 1, "base": {"ref": "main", "sha": base},
                         "head": {"ref": "bug", "sha": head}}}))
    env = _go_env(GITHUB_ACTIONS="true", CI="true", GITHUB_EVENT_NAME="pull_request",
                  GITHUB_EVENT_PATH=str(pr_event), GITHUB_SHA=merge,
                  GITHUB_REF="refs/pull/1/merge", GITHUB_BASE_REF="main",
                  GITHUB_HEAD_REF="bug", GITHUB_RUN_ID="run1",
                  GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))

    report = _warpline(ck, env, "ci", "--json", "--selection", str(tmp_path / "selection.txt"))
    assert report.returncode == 0, report.stdout + report.stderr
    body: dict[str, Any] = json.loads(report.stdout)
    selection = body["reverify"]["data"]["selection"]
    assert selection["basis"] == "map" and selection["map_commit"] == base
    assert "calc/calc_test.go::TestSub" in selection["tests"]
    assert SUB in {i["entity"]["locator"] for i in body["reverify"]["data"]["items"]}
    lines = (tmp_path / "selection.txt").read_text().splitlines()
    assert lines == ["go test ./calc -count=1 -run '^TestSub$'"]
    # The printed line runs as printed, and fails.
    printed = subprocess.run(["bash", "-c", lines[0]], cwd=ck, env=env, capture_output=True,
                             text=True, timeout=300, check=False)
    assert printed.returncode == 1 and "--- FAIL: TestSub" in printed.stdout

    run = _warpline(ck, env, "run-tests", "--select", "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    (ran,) = json.loads(run.stdout)["runs"]
    assert ran["receipt"]["failed_tests"] == ["calc/calc_test.go::TestSub"]
    assert ran["receipt"]["selection"]["basis"] == "map"
    refused = _warpline(ck, env, "ci", "--record", "test_pass", "--json")
    assert refused.returncode == 1
    error = json.loads(refused.stdout)
    assert (error["error_code"], error["details"]["reason"]) == ("unbacked_pass", "run_failed")
    assert head not in _notes(remote) and merge not in _notes(remote)
