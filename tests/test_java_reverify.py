"""Java end to end (issue 37): ``reverify`` on a Maven project selects the tests of a change
and prints Surefire's own command, which runs exactly them — statically without a map, and
map-first after ``warpline record-tests`` (JaCoCo per test), where a bug's failing tests
are in the selection. Real git, real store, real ``mvn``, the fixture of
``tests/javaproject.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from tests.javaproject import FILES, mvn_available, write

pytestmark = pytest.mark.skipif(not mvn_available(), reason="mvn and javac are not installed")

CALC = "src/main/java/demo/Calc.java"
BASE = "src/test/java/demo/"


def _warpline(root: Path, *args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPLINE_")}
    done = subprocess.run([sys.executable, "-m", "warpline.cli", *args, "--repo", str(root),
                           "--json"], cwd=root, capture_output=True, text=True, env=env,
                          timeout=900, check=False)
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _maven(selection: dict[str, Any]) -> dict[str, Any]:
    runs: list[dict[str, Any]] = [r for r in selection["runners"] if r["runner"] == "maven"]
    assert len(runs) == 1, selection["runners"]
    return runs[0]


def _run(root: Path, command: str) -> tuple[int, set[str], set[str]]:
    """(exit status, tests run, tests failed) of the printed command, from Surefire's own
    reports."""
    reports = root / "target" / "surefire-reports"
    for old in reports.glob("TEST-*.xml") if reports.is_dir() else ():
        old.unlink()
    done = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, text=True,
                          timeout=600, check=False)
    ran, failed = set(), set()
    for report in reports.glob("TEST-*.xml"):
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname')}#{case.get('name')}"
            ran.add(name)
            if case.find("failure") is not None or case.find("error") is not None:
                failed.add(name)
    return done.returncode, ran, failed


def _exactly(ids: list[str], ran: set[str]) -> bool:
    """The run ran every test the ids name and nothing else: a method id its test, a file
    id (a floor file, run whole) the tests of its class."""
    methods, classes = set(), set()
    for test_id in ids:
        path, _, rest = test_id.partition("::")
        package = path.removeprefix("src/test/java/").rpartition("/")[0].replace("/", ".")
        if rest:
            methods.add(f"{package}.{rest}")
        else:
            classes.add(f"{package}.{path.rpartition('/')[2].removesuffix('.java')}")
    return methods <= ran and all(t in methods or t.partition("#")[0] in classes for t in ran)


def test_reverify_selects_and_runs_java_tests_statically_then_map_first(
        tmp_path: Path) -> None:
    fixture = FixtureRepo(tmp_path / "calc")
    fixture.commit(dict(FILES), "calc")
    root = write(fixture.path)
    (root / ".gitignore").write_text("target/\n", encoding="utf-8")

    # Without a map: a change to Scale.apply, the static basis (edges and the floor).
    scaled = FILES["src/main/java/demo/Scale.java"].replace("value * factor",
                                                           "factor * value")
    fixture.commit({"src/main/java/demo/Scale.java": scaled}, "scale")
    write(root, {"src/main/java/demo/Scale.java": scaled})
    answer = _warpline(root, "reverify", "HEAD~1..HEAD")
    selection = answer["data"]["selection"]
    assert selection["basis"] == "static"
    run = _maven(selection)
    # reaching Scale.apply over the edges; SubCheckTest names Scale itself: its file whole
    assert set(run["tests"]) >= {f"{BASE}CalcTest.java::CalcTest#adds",
                                 f"{BASE}SubCheckTest.java"}
    assert f"{BASE}CalcTest.java::CalcTest#subtracts" not in run["tests"]
    status, ran, _ = _run(root, run["command"])
    assert status == 0 and _exactly(run["tests"], ran)
    assert "demo.SubCheckTest#scales" in ran and "demo.CalcTest#subtracts" not in ran
    assert run["command"] in [c["command"] for c in answer["next_actions"]["commands"]]

    # A map of the whole suite at HEAD, then a bug in Calc.sub: map-first.
    recorded = _warpline(root, "record-tests")
    (found,) = recorded["records"]
    assert found["runner"] == "maven" and found["source"] == "maven-jacoco"
    assert found["tests"] == 8 and found["failed_tests"] == [] and found["exit_status"] == 0
    buggy = FILES[CALC].replace("return a - b;", "return a - b + 1;")
    fixture.commit({CALC: buggy}, "bug")
    write(root, {CALC: buggy})
    selection = _warpline(root, "reverify", "HEAD~1..HEAD")["data"]["selection"]
    assert selection["basis"] == "map", selection
    run = _maven(selection)
    assert sorted(run["tests"]) == [f"{BASE}CalcTest.java::CalcTest#subtracts",
                                    f"{BASE}LegacyTestCase.java::LegacyTestCase#testSubtracts"]
    status, ran, failed = _run(root, run["command"])
    assert status != 0 and _exactly(run["tests"], ran)
    assert failed == {"demo.CalcTest#subtracts", "demo.LegacyTestCase#testSubtracts"}


def test_a_pull_request_job_on_a_maven_project(tmp_path: Path) -> None:
    """As the GitHub job test does for Python: on main, `warpline record-tests` records the
    map and `warpline ci --record` pushes it with the pass; the PR job fetches it and
    selects map-first, Surefire's own command runs the selection and fails on the bug, and
    nothing is recorded as passed."""
    from tests.test_ci_github_job import Forge, _git, _remote_notes, _report
    from tests.test_ci_github_job import _warpline as _job

    forge = Forge(tmp_path, {**FILES, ".gitignore": "target/\n"})
    main = _git(forge.dev, "rev-parse", "main")
    ck, env = forge.push_checkout(main, main, "main-push")
    recorded = _job(ck, env, "record-tests", "--json")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert json.loads(recorded.stdout)["records"][0]["dirty_paths"] == []
    done = _job(ck, env, "ci", "--record", "test_pass", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["sync"]["maps"]["pushed"] == 1

    pull = forge.pull_request("bug", [{CALC: FILES[CALC].replace("return a - b;",
                                                                 "return a - b + 1;")}])
    pr = forge.github_checkout(pull, 1, "pr")
    pr_env = forge.github_env(pull, pr)
    selection = _report(pr, pr_env)["reverify"]["data"]["selection"]
    assert selection["basis"] == "map" and selection["map_commit"] == main, selection
    run = _maven(selection)
    assert f"{BASE}CalcTest.java::CalcTest#subtracts" in run["tests"]
    status, ran, failed = _run(pr, run["command"])
    assert status != 0 and _exactly(run["tests"], ran)
    assert "demo.CalcTest#subtracts" in failed
    # warpline run-tests --select (the job's range) runs the same command, watches it and
    # leaves the receipt of the failure.
    ran_tests = _job(pr, pr_env, "run-tests", "--select", "--json")
    assert ran_tests.returncode == 1, ran_tests.stdout + ran_tests.stderr
    (watched,) = json.loads(ran_tests.stdout)["runs"]
    assert watched["runner"] == "maven" and watched["tests"] == run["tests"]
    assert f"{BASE}CalcTest.java::CalcTest#subtracts" in watched["receipt"]["failed_tests"]
    assert watched["receipt"]["selection"]["basis"] == "map"
    refused = _job(pr, pr_env, "ci", "--record", "test_pass", "--json")
    error = json.loads(refused.stdout)
    assert (error["error_code"], error["details"]["reason"]) == ("unbacked_pass", "run_failed")
    assert pull["merge"] not in _remote_notes(forge)
