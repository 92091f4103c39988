"""CI as docs/ci.md documents it (issue 34, item 4), on the GitHub job of
``tests/test_ci_github_job.py`` (a bare remote, the merge ref checked out as
actions/checkout does, real pytest runs):

* warpline's own outputs written into the checkout (the default ``warpline-reverify.md``,
  the GitLab example's ``tests.txt``) are never the change: ``pytest --warpline-select``
  runs the pull request's selection, not every test, and records it as a selection;
* the PR job judges the map of its base as current (no "behind, refresh it");
* a refusal after a run that stopped before its tests names the exit status, no failures;
* the plugin's end-of-run line is printed on a line of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_ci_github_job import OPS, Forge, _env, _git, _pytest, _warpline


@pytest.fixture()
def forge(tmp_path: Path) -> Forge:
    return Forge(tmp_path)


def test_the_reports_ci_writes_into_the_checkout_are_not_the_change(forge: Forge) -> None:
    pull = forge.pull_request("bug", [{"calc/ops.py": OPS.replace("a * b", "b * a")}])
    ck = forge.github_checkout(pull, 1, "ck")
    env = forge.github_env(pull, ck)
    done = _warpline(ck, env, "ci", "--json", "--selection", "tests.txt")  # into the checkout
    assert done.returncode == 0, done.stdout + done.stderr
    assert (ck / "warpline-reverify.md").is_file() and (ck / "tests.txt").is_file()
    mine = _warpline(ck, env, "changed", "--json", "--worktree", "--repo", str(ck))
    changed = {i["entity"]["path"] for i in json.loads(mine.stdout)["data"]["items"]}
    assert not changed & {"warpline-reverify.md", "tests.txt"}, changed
    run = _pytest(ck, env, "--warpline-select")
    assert run.returncode == 0, run.stdout + run.stderr
    recorded = _warpline(ck, env, "ci", "--record", "test_pass", "--no-push", "--json")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    record = json.loads(recorded.stdout)["record"]["data"]
    assert record["scope"] == "selection"  # was whole_suite: the reports made it "unknown"
    assert record["run"]["tests_run"] < 3


def test_a_pull_request_job_judges_the_map_of_its_base_as_current(forge: Forge) -> None:
    main = _git(forge.dev, "rev-parse", "main")
    ck, env = forge.push_checkout(main, main, "main-push")
    recorded = _pytest(ck, env, "--warpline-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert _warpline(ck, env, "ci", "--record", "test_pass", "--json").returncode == 0
    pull = forge.pull_request("bug", [{"calc/ops.py": OPS.replace("a * b", "a * b + 1")},
                                      {"calc/ops.py": OPS.replace("a * b", "a * b + 2")}])
    pr = forge.github_checkout(pull, 1, "pr")
    done = _warpline(pr, forge.github_env(pull, pr), "ci", "--json", "--markdown",
                     str(pr.parent / "pr.md"))
    assert done.returncode == 0, done.stdout + done.stderr
    reverify = json.loads(done.stdout)["reverify"]
    selection = reverify["data"]["selection"]
    assert selection["basis"] == "map" and selection["map_commit"] == main
    # The map is the base's: the commits after it are the pull request itself.
    assert not any(main[:12] in warning for warning in reverify["warnings"])


def test_a_run_that_stopped_before_its_tests_is_refused_with_its_exit_status(
        forge: Forge) -> None:
    main = _git(forge.dev, "rev-parse", "main")
    ck, env = forge.push_checkout(main, main, "main-push")
    assert _warpline(ck, env, "ci", "--no-fetch", "--base", "HEAD").returncode == 0
    run = _pytest(ck, env, "tests/no_such_file.py")
    assert run.returncode == 4, run.stdout + run.stderr
    refused = _warpline(ck, env, "ci", "--record", "test_pass", "--no-push", "--json")
    error = json.loads(refused.stdout)
    assert (error["error_code"], error["details"]["reason"]) == ("unbacked_pass", "run_failed")
    assert error["details"]["exit_status"] == 4 and error["details"]["failed_tests"] == []
    assert "0 failed" not in error["hint"]


def test_the_plugins_summary_is_a_line_of_its_own(forge: Forge) -> None:
    main = _git(forge.dev, "rev-parse", "main")
    ck, env = forge.push_checkout(main, main, "main-push")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--warpline-record"], cwd=ck, env={**env, "PYTHONPATH": str(ck)},
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("warpline: test map") for line in lines), done.stdout
    assert not any("%]warpline" in line for line in lines)


def test_the_documented_github_workflow_runs_the_selection_on_pull_requests() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "ci.md").read_text(encoding="utf-8")
    workflow = page.split("### GitHub Actions", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    steps = workflow.split("- run: ")[1:]
    pull_request = [s for s in steps if "github.event_name == 'pull_request'" in s]
    assert pull_request and all("--warpline-select" in s for s in pull_request)
    assert _env()  # the shared helpers are the GitHub job's
