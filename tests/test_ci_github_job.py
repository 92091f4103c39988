"""A GitHub Actions ``pull_request`` job end to end, on real git: a bare remote in a temp dir,
pull requests pushed to it, the runner's checkout made as ``actions/checkout`` makes it (the
merge ref ``refs/pull/N/merge`` fetched by commit id at ``fetch-depth: 1`` or 50, checked
out detached, no branch refs), the event file, and real pytest runs of a small project with
warpline's plugin active (entry point ``pytest11``). Also GitLab's merge-request job.

What it proves (issue 27): the job's range is found at depth 1 and 50 (the base from the
event, what is missing fetched); ``pytest --warpline-select`` with no range takes the job's
range; a failing run leaves a receipt that makes ``warpline ci --record`` refuse; a
whole-suite pass records ``scope: whole_suite``, a selection's pass ``scope: selection``, and
a developer's clone sees which after ``warpline sync``; another branch's record is never
this history's evidence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import run_git

OPS = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
FMT = ("from calc.ops import add\n\n\ndef total(xs):\n    out = 0\n    for x in xs:\n"
       "        out = add(out, x)\n    return out\n")
FILES = {
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "calc/__init__.py": "",
    "calc/ops.py": OPS,
    "calc/fmt.py": FMT,
    "tests/test_ops.py": ("from calc.ops import add, mul\n\n\ndef test_add():\n"
                          "    assert add(2, 3) == 5\n\n\ndef test_mul():\n"
                          "    assert mul(2, 3) == 6\n"),
    "tests/test_fmt.py": ("from calc.fmt import total\n\n\ndef test_total():\n"
                          "    assert total([1, 2, 3]) == 6\n"),
}
MUL = "python:function:calc.ops.mul"
TOTAL = "python:function:calc.fmt.total"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GITLAB_", "CI_", "RUNNER_", "PYTEST_", "WARPLINE_"))
           and k != "CI"}
    return {**env, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "WARPLINE_INTERACTIVE_BUDGET_S": "30", **extra}


def _git(cwd: Path, *args: str) -> str:
    return run_git(cwd, *args).strip()


def _warpline(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240)


def _pytest(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rA", *args], cwd=cwd, env={**env, "PYTHONPATH": str(cwd)},
                          capture_output=True, text=True, timeout=240)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


class Forge:
    """A bare remote, a developer's clone that opens pull requests, and runners' checkouts."""

    def __init__(self, tmp: Path, files: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.remote = tmp / "remote.git"
        _git(tmp, "init", "-q", "--bare", "-b", "main", str(self.remote))
        self.dev = tmp / "dev"
        _git(tmp, "clone", "-q", str(self.remote), str(self.dev))
        _git(self.dev, "config", "user.name", "Dev")
        _git(self.dev, "config", "user.email", "dev@example.com")
        _git(self.dev, "checkout", "-q", "-b", "main")
        _write(self.dev, FILES if files is None else files)
        _git(self.dev, "add", "-A")
        _git(self.dev, "commit", "-qm", "calc")
        for n in range(3):  # some history on main
            (self.dev / "NOTES.txt").write_text(f"note {n}\n")
            _git(self.dev, "add", "NOTES.txt")
            _git(self.dev, "commit", "-qm", f"notes {n}")
        _git(self.dev, "push", "-q", "origin", "main")
        self.pulls = 0

    def pull_request(self, branch: str, edits: list[dict[str, str]]) -> dict[str, str]:
        """Push ``branch`` (one commit per edit) from main, and the forge's refs
        ``refs/pull/N/head`` and ``refs/pull/N/merge`` (the PR merged into main)."""
        self.pulls += 1
        _git(self.dev, "checkout", "-q", "-b", branch, "main")
        for n, files in enumerate(edits):
            _write(self.dev, files)
            _git(self.dev, "commit", "-qam", f"{branch}: edit {n}")
        head = _git(self.dev, "rev-parse", "HEAD")
        base = _git(self.dev, "rev-parse", "main")
        _git(self.dev, "push", "-q", "origin", branch)
        _git(self.dev, "checkout", "-q", "--detach", "main")
        _git(self.dev, "merge", "-q", "--no-ff", "-m", f"Merge {head} into {base}", head)
        merge = _git(self.dev, "rev-parse", "HEAD")
        _git(self.dev, "push", "-q", "origin", f"{head}:refs/pull/{self.pulls}/head",
             f"{merge}:refs/pull/{self.pulls}/merge")
        _git(self.dev, "checkout", "-q", branch)
        return {"number": str(self.pulls), "branch": branch, "head": head, "base": base,
                "merge": merge}

    def github_checkout(self, pull: dict[str, str], depth: int, name: str) -> Path:
        """As actions/checkout@v4 does for a pull_request event: init, add the remote,
        fetch the merge commit by id into refs/remotes/pull/N/merge, check it out."""
        ck = self.tmp / name
        ck.mkdir()
        _git(ck, "init", "-q")
        _git(ck, "remote", "add", "origin", f"file://{self.remote}")
        _git(ck, "-c", "protocol.version=2", "fetch", "--no-tags", "--prune",
             "--no-recurse-submodules", f"--depth={depth}", "origin",
             f"+{pull['merge']}:refs/remotes/pull/{pull['number']}/merge")
        _git(ck, "checkout", "-q", "--force", f"refs/remotes/pull/{pull['number']}/merge")
        _git(ck, "config", "user.name", "github-actions")
        _git(ck, "config", "user.email", "actions@example.com")
        return ck

    def push_checkout(self, before: str, after: str, name: str) -> tuple[Path, dict[str, str]]:
        """As actions/checkout@v4 does for a push event (depth 1), and the job's env."""
        ck = self.tmp / name
        ck.mkdir()
        _git(ck, "init", "-q")
        _git(ck, "remote", "add", "origin", f"file://{self.remote}")
        _git(ck, "fetch", "-q", "--no-tags", "--depth=1", "origin",
             f"+{after}:refs/remotes/origin/main")
        _git(ck, "checkout", "-q", "--detach", after)
        event = self.tmp / f"{name}.json"
        event.write_text(json.dumps({"before": before, "after": after}))
        return ck, _env(GITHUB_ACTIONS="true", CI="true", GITHUB_EVENT_NAME="push",
                        GITHUB_EVENT_PATH=str(event), GITHUB_SHA=after,
                        GITHUB_RUN_ID=f"push-{name}")

    def github_env(self, pull: dict[str, str], ck: Path) -> dict[str, str]:
        event = ck.parent / f"{ck.name}-event.json"
        event.write_text(json.dumps({
            "action": "synchronize", "number": int(pull["number"]),
            "pull_request": {"number": int(pull["number"]),
                             "base": {"ref": "main", "sha": pull["base"]},
                             "head": {"ref": pull["branch"], "sha": pull["head"]}}}))
        return _env(GITHUB_ACTIONS="true", CI="true", GITHUB_EVENT_NAME="pull_request",
                    GITHUB_EVENT_PATH=str(event), GITHUB_SHA=pull["merge"],
                    GITHUB_REF=f"refs/pull/{pull['number']}/merge", GITHUB_BASE_REF="main",
                    GITHUB_HEAD_REF=pull["branch"], GITHUB_RUN_ID=f"run{pull['number']}",
                    GITHUB_STEP_SUMMARY=str(ck.parent / f"{ck.name}-summary.md"))


def _report(ck: Path, env: dict[str, str]) -> dict[str, Any]:
    done = _warpline(ck, env, "ci", "--json", "--markdown", str(ck.parent / f"{ck.name}.md"))
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _items(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["entity"]["locator"]: i for i in report["reverify"]["data"]["items"]}


def _remote_notes(forge: Forge) -> str:
    listed = _git(forge.remote, "notes", "--ref=refs/notes/warpline", "list") \
        if _git(forge.remote, "for-each-ref", "refs/notes/warpline") else ""
    return "\n".join(_git(forge.remote, "notes", "--ref=refs/notes/warpline", "show",
                          line.split()[1]) for line in listed.splitlines())


@pytest.fixture()
def forge(tmp_path: Path) -> Forge:
    return Forge(tmp_path)


@pytest.mark.parametrize("depth", [1, 50])
def test_the_job_finds_its_range_at_the_default_depths(forge: Forge, depth: int) -> None:
    pull = forge.pull_request("bug", [{"calc/ops.py": OPS.replace("a * b", "a * b + 1")},
                                      {"calc/fmt.py": FMT.replace("out = 0", "out = 0  # sum")}])
    ck = forge.github_checkout(pull, depth, f"ck{depth}")
    report = _report(ck, forge.github_env(pull, ck))
    found = report["ci"]
    assert (found["base_sha"], found["head_sha"]) == (pull["base"], pull["merge"])
    assert {MUL, TOTAL} <= set(_items(report))
    assert bool(found["fetched"]) is (depth == 1)  # at 50 the base is already there


def test_a_failing_selected_run_is_never_recorded_as_a_pass(forge: Forge) -> None:
    pull = forge.pull_request("bug", [{"calc/ops.py": OPS.replace("a * b", "a * b + 1")}])
    ck = forge.github_checkout(pull, 1, "ck")
    env = forge.github_env(pull, ck)
    _report(ck, env)
    # No range given: the plugin takes the job's range (detached, no upstream).
    run = _pytest(ck, env, "--warpline-select")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED tests/test_ops.py::test_mul" in run.stdout
    assert "selected 0 of" not in run.stdout
    refused = _warpline(ck, env, "ci", "--record", "test_pass", "--json")
    assert refused.returncode == 1
    error = json.loads(refused.stdout)
    assert (error["error_code"], error["details"]["reason"]) == ("unbacked_pass", "run_failed")
    # A narrower run after the failure does not clear it either.
    run = _pytest(ck, env, "-k", "test_add")
    assert run.returncode == 0, run.stdout
    refused = _warpline(ck, env, "ci", "--record", "test_pass", "--json")
    assert json.loads(refused.stdout)["details"]["reason"] == "earlier_failure"
    assert _remote_notes(forge) == ""


def test_passes_record_what_ran_and_the_developer_sees_which(forge: Forge) -> None:
    whole = forge.pull_request("good", [{"calc/ops.py": OPS.replace("a + b", "b + a")}])
    ck = forge.github_checkout(whole, 1, "ck-whole")
    env = forge.github_env(whole, ck)
    _report(ck, env)
    assert _pytest(ck, env).returncode == 0
    done = _warpline(ck, env, "ci", "--record", "test_pass", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(done.stdout)["record"]["data"]
    assert (record["commit_sha"], record["scope"]) == (whole["head"], "whole_suite")
    assert record["run"]["tested_commit"] == whole["merge"]
    assert record["run"]["rootdir"] == ""
    assert record["run"]["tests_run"] == 3 and record["run"]["tests_failed"] == 0
    assert '"scope":"whole_suite"' in _remote_notes(forge)

    # A second pull request, from main: the first one's pass is on another branch.
    _git(forge.dev, "checkout", "-q", "main")
    narrow = forge.pull_request("narrow", [{"calc/fmt.py": FMT.replace("out = 0", "out = 0 * 1")}])
    ck2 = forge.github_checkout(narrow, 50, "ck-narrow")
    env2 = forge.github_env(narrow, ck2)
    report = _report(ck2, env2)
    total = _items(report)[TOTAL]["verification"]
    assert total["state"] == "unverified", total  # never "stale (last: <the other PR>)"
    assert total["last_verified_commit"] != whole["head"]
    run = _pytest(ck2, env2, "--warpline-select")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "deselected" in run.stdout
    done = _warpline(ck2, env2, "ci", "--record", "test_pass", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(done.stdout)["record"]["data"]
    assert record["scope"] == "selection"
    assert record["run"]["selection"]["basis"] in ("static", "mixed", "map")
    assert record["run"]["tests_run"] < 3

    # The developer, on the second pull request's branch, syncs and asks.
    synced = _warpline(forge.dev, _env(), "sync")
    assert synced.returncode == 0, synced.stderr
    answer = _warpline(forge.dev, _env(), "reverify", "main..narrow", "--json")
    assert answer.returncode == 0, answer.stderr
    body = json.loads(answer.stdout)
    state = {i["entity"]["locator"]: i["verification"] for i in body["data"]["items"]}[TOTAL]
    assert (state["state"], state["scope"]) == ("fresh", "selection")
    assert state["selection_basis"] == record["run"]["selection"]["basis"]
    assert any("selection" in w for w in body["warnings"])
    markdown = _warpline(forge.dev, _env(), "reverify", "main..narrow", "--format", "markdown")
    assert f"a selection on basis {state['selection_basis']}" in markdown.stdout
    # On the first branch, that pass is whole-suite.
    answer = _warpline(forge.dev, _env(), "reverify", "main..good", "--json")
    states = {i["verification"]["scope"] for i in json.loads(answer.stdout)["data"]["items"]
              if i["reason"] == "changed"}
    assert states == {"whole_suite"}


def test_gitlab_merge_request_job(forge: Forge) -> None:
    pull = forge.pull_request("mr", [{"calc/ops.py": OPS.replace("a + b", "b + a")}])
    ck = forge.tmp / "gl"
    ck.mkdir()
    # GitLab's runner: a shallow fetch of the source branch, the pipeline's commit checked out.
    _git(ck, "init", "-q")
    _git(ck, "remote", "add", "origin", f"file://{forge.remote}")
    _git(ck, "fetch", "-q", "--no-tags", "--depth=1", "origin",
         "+refs/heads/mr:refs/remotes/origin/mr")
    _git(ck, "checkout", "-q", "--detach", pull["head"])
    env = _env(GITLAB_CI="true", CI="true", CI_PIPELINE_SOURCE="merge_request_event",
               CI_MERGE_REQUEST_DIFF_BASE_SHA=pull["base"],
               CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main", CI_COMMIT_SHA=pull["head"],
               CI_JOB_ID="77")
    report = _report(ck, env)
    assert (report["ci"]["base_sha"], report["ci"]["head_sha"]) == (pull["base"], pull["head"])
    assert "python:function:calc.ops.add" in _items(report)
    assert _pytest(ck, env).returncode == 0
    done = _warpline(ck, env, "ci", "--record", "ci_pass", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)["record"]["data"]
    assert (data["actor"], data["scope"]) == ("gitlab-ci:77", "whole_suite")


def test_a_push_job_at_depth_1_fetches_the_commit_before_the_push(forge: Forge) -> None:
    before = _git(forge.dev, "rev-parse", "main")
    _write(forge.dev, {"calc/ops.py": OPS.replace("a * b", "b * a")})
    _git(forge.dev, "commit", "-qam", "main: mul")
    after = _git(forge.dev, "rev-parse", "HEAD")
    _git(forge.dev, "push", "-q", "origin", "main")
    ck, env = forge.push_checkout(before, after, "push")
    report = _report(ck, env)
    assert report["ci"]["rev_range"] == f"{before}..{after}"
    assert set(_items(report)) >= {MUL}
    assert _pytest(ck, env).returncode == 0
    done = _warpline(ck, env, "ci", "--record", "test_pass", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["record"]["data"]["commit_sha"] == after


def test_without_its_range_the_job_says_why_and_runs_everything(forge: Forge) -> None:
    pull = forge.pull_request("cut", [{"calc/ops.py": OPS.replace("a + b", "b + a")}])
    ck = forge.github_checkout(pull, 1, "ck-cut")
    env = forge.github_env(pull, ck)
    # --no-fetch: the depth-1 clone lacks the base; the report says so and exits 0.
    done = _warpline(ck, env, "ci", "--no-fetch", "--json", "--markdown",
                     str(forge.tmp / "cut.md"), "--selection", str(forge.tmp / "cut.txt"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["error"]["error_code"] == "invalid_rev_range"
    assert (forge.tmp / "cut.txt").read_text() == ""
    assert "no re-verify report" in (forge.tmp / "cut.md").read_text()
    # The remote is gone: the plugin cannot find the range, says why and runs every test.
    _git(ck, "remote", "set-url", "origin", str(forge.tmp / "gone.git"))
    run = _pytest(ck, env, "--warpline-select")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed" in run.stdout and "no selection" in run.stdout
    # A runner other than pytest: --attest records an attestation, never a run's scope.
    done = _warpline(ck, env, "ci", "--record", "test_pass", "--attest", "--no-push",
                     "--no-fetch", "--head", "HEAD", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["record"]["data"]["scope"] == "attested"


def test_the_map_main_records_travels_and_selects_the_failing_test_in_the_pr_job(
        forge: Forge) -> None:
    """On main, CI records the map over the whole suite and `warpline ci --record` pushes
    it with the notes; the PR job fetches it, selects map-first from the nearest mapped
    ancestor (the PR's base), the selected run fails on the bug, and no pass is recorded."""
    main = _git(forge.dev, "rev-parse", "main")
    ck, env = forge.push_checkout(main, main, "main-push")
    recorded = _pytest(ck, env, "--warpline-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    done = _warpline(ck, env, "ci", "--record", "test_pass", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["sync"]["maps"]["pushed"] == 1
    assert _git(forge.remote, "ls-tree", "--name-only", "refs/warpline/testmaps") == \
        f"{main}.zlib"

    pull = forge.pull_request("bug", [{"calc/ops.py": OPS.replace("a * b", "a * b + 1")}])
    pr = forge.github_checkout(pull, 1, "pr")
    pr_env = forge.github_env(pull, pr)
    selection = _report(pr, pr_env)["reverify"]["data"]["selection"]
    assert selection["basis"] == "map", selection
    assert selection["map_commit"] == main and selection["map_commits_behind"] >= 1
    assert "tests/test_ops.py::test_mul" in selection["tests"]
    run = _pytest(pr, pr_env, "--warpline-select")
    assert run.returncode == 1 and "FAILED tests/test_ops.py::test_mul" in run.stdout
    refused = _warpline(pr, pr_env, "ci", "--record", "test_pass", "--json")
    assert json.loads(refused.stdout)["error_code"] == "unbacked_pass"
    assert pull["merge"] not in _remote_notes(forge)
