"""warpline's pytest plugin over a real suite: the requests repository's own tests.

The corpus (``requests.bundle``, found as in ``bench/_requests_corpus.py``) is cloned as one
commit holding its HEAD tree (the same code and suite; no 6,489-commit backfill); its test
dependencies come from the package registry (the ``test`` extra). The suite runs offline:
the tests that leave the machine are deselected and ``_loopback_guard`` refuses, and logs,
any lookup or connect that is not loopback. The fast subset (the suite less its slowest
~50 tests: timeouts and waits) keeps this module near a minute.

Truth is coverage.py with per-test contexts over the same subset at the same commit; the map
is the plugin's (``--warpline-record``), serial and under pytest-xdist ``-n 2``.

Off CI a missing corpus or dependency skips with the install command; on CI (``CI`` set,
where ``.ci/run`` installs them) it fails.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import _coverage_truth as truth_mod
import _requests_corpus as corpus
import _selection_eval as evaluate

pytestmark = pytest.mark.realsuite
SUBSET = "fast"
# Functions to edit: a plain function, a method reached through a session, a constructor
# and a dunder (called implicitly), a property read as an attribute, a hook dispatcher.
EDITED = (
    "python:function:requests.utils.super_len",
    "python:function:requests.models.PreparedRequest.prepare_body",
    "python:function:requests.structures.CaseInsensitiveDict.__init__",
    "python:function:requests.structures.CaseInsensitiveDict.__setitem__",
    "python:function:requests.models.Response.ok",
    "python:function:requests.hooks.dispatch_hook",
    "python:function:requests.cookies.get_cookie_header",
    "python:function:requests.utils.get_auth_from_url",
)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (.ci/run installs it)")
    pytest.skip(reason)


def _plugin_installed() -> bool:
    from importlib.metadata import entry_points

    return any(e.name == "warpline" for e in entry_points(group="pytest11"))


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        corpus.requests_bundle()
    except corpus.CorpusMissing as missing:
        _unavailable(str(missing))
    if corpus.missing_suite_deps():
        _unavailable(f"pip install {' '.join(corpus.missing_suite_deps())}")
    return corpus.clone_requests(tmp_path_factory.mktemp("realsuite") / "requests",
                                 history=False)


def _run(clone: Path, label: str, extra: list[str],
         env_extra: dict[str, str] | None = None) -> tuple[corpus.SuiteRun, list[str]]:
    log = clone.parent / f"guard-{label}.log"
    env = corpus.suite_env(clone, guard_log=log)
    env.update(env_extra or {})
    run = corpus.run_suite(clone, extra, subset=SUBSET, env=env, timeout=600)
    return run, log.read_text().splitlines() if log.exists() else []


@pytest.fixture(scope="module")
def truth_run(clone: Path) -> dict[str, Any]:
    data_file = clone.parent / "truth.coverage"
    run, leaks = _run(clone, "coverage", ["--cov=requests", "--cov-context=test",
                                          "--cov-report=", "-rA"],
                      {"COVERAGE_FILE": str(data_file)})
    per_line = truth_mod.per_line_tests(data_file, clone)
    functions = {f.locator: f for f in truth_mod.functions(clone)}
    ran = {line.split(" ", 1)[1].split(" - ", 1)[0] for line in run.output.splitlines()
           if line.startswith(("PASSED ", "XFAIL ", "FAILED ", "ERROR "))}
    return {"run": run, "leaks": leaks, "per_line": per_line, "functions": functions,
            "ran": ran, "collected": set(corpus.collected_ids(clone, SUBSET))}


def test_the_suite_runs_offline_on_loopback_only(clone: Path, truth_run: dict[str, Any]) -> None:
    run = truth_run["run"]
    assert run.returncode == 0, run.output[-3000:]
    assert truth_run["leaks"] == []  # no test tried to reach past loopback
    ran = truth_run["ran"]
    assert len(ran) > 500
    for node_id in corpus.NETWORK_TESTS:
        assert not any(r == node_id or r.startswith(node_id + "[") for r in ran), node_id
    # deselection is exact: a test whose name merely starts like a deselected one still runs
    assert "tests/test_requests.py::TestRequests::test_proxy_error_on_bad_url" in ran


def test_the_guard_refuses_what_would_leave_the_machine(clone: Path) -> None:
    probe = clone / "tests" / "test_zz_guard_probe.py"
    probe.write_text(
        "import socket, pytest\n"
        "def test_lookup():\n"
        "    with pytest.raises(socket.gaierror):\n"
        "        socket.getaddrinfo('example.invalid', 80)\n"
        "def test_connect():\n"
        "    s = socket.socket()\n"
        "    with pytest.raises(OSError):\n"
        "        s.connect(('192.0.2.1', 80))\n"
        "    s.close()\n"
        "def test_loopback_still_works():\n"
        "    server = socket.socket(); server.bind(('127.0.0.1', 0)); server.listen()\n"
        "    client = socket.create_connection(server.getsockname(), timeout=5)\n"
        "    client.close(); server.close()\n")
    try:
        log = clone.parent / "guard-probe.log"
        env = corpus.suite_env(clone, guard_log=log)
        run = corpus.run_suite(clone, env=env, timeout=120,
                               paths=[str(probe.relative_to(clone))])
        assert run.returncode == 0, run.output[-2000:]
        refused = [json.loads(line) for line in log.read_text().splitlines()]
        assert {(r["call"], r["test"].rsplit("::", 1)[-1]) for r in refused} == {
            ("getaddrinfo", "test_lookup"), ("connect", "test_connect")}
    finally:
        probe.unlink()


# -- the map: needs warpline's pytest plugin ----------------------------------------------

needs_plugin = pytest.mark.skipif(not _plugin_installed(),
                                  reason="this warpline build has no pytest plugin")


def _record(clone: Path, label: str, extra: list[str]) -> int:
    from warpline.store import testmaps
    from warpline.store.db import Store

    run, leaks = _run(clone, label, ["--warpline-record", *extra])
    assert run.returncode == 0, run.output[-3000:]
    assert leaks == []
    with Store.open(clone) as store:
        return max(row.id for row in testmaps.maps(store))


@pytest.fixture(scope="module")
def serial_map(clone: Path, truth_run: dict[str, Any]) -> int:
    return _record(clone, "record", [])


@pytest.fixture(scope="module")
def xdist_map(clone: Path, serial_map: int) -> int:
    return _record(clone, "record-xdist", ["-n", "2"])


def _hits(clone: Path, map_id: int) -> dict[str, set[str]]:
    from warpline.store import testmaps
    from warpline.store.db import Store

    with Store.open(clone) as store:
        return testmaps.hits_by_test(store, map_id)


def _edit_and_reverify(clone: Path, function: truth_mod.Function) -> dict[str, Any]:
    from warpline.registry import call_tool

    truth_mod.insert_edit(clone, function)
    corpus.git("commit", "-q", "-am", f"edit {function.locator}", cwd=clone)
    return call_tool("reverify", {"repo": str(clone), "rev_range": "HEAD~1..HEAD"})


@needs_plugin
def test_without_a_map_the_selection_says_it_is_static(clone: Path,
                                                       truth_run: dict[str, Any]) -> None:
    from warpline.store import testmaps
    from warpline.store.db import Store

    base = corpus.git("rev-parse", "HEAD", cwd=clone).strip()
    try:
        envelope = _edit_and_reverify(clone, truth_run["functions"][EDITED[0]])
        with Store.open(clone) as store:
            assert testmaps.maps(store) == []  # this test runs before any recording
        selection = envelope["data"]["selection"]
        assert selection["basis"] in ("static", "none")
        assert selection["map_commit"] is None
    finally:
        corpus.git("reset", "-q", "--hard", base, cwd=clone)


@needs_plugin
def test_the_plugin_records_a_map_of_the_real_suite(clone: Path, truth_run: dict[str, Any],
                                                     serial_map: int) -> None:
    hits = _hits(clone, serial_map)
    assert set(hits) == truth_run["collected"]  # every test of the run (skips too)
    executed = {loc for locators in hits.values() for loc in locators}
    for locator in EDITED:
        assert locator in executed


@needs_plugin
def test_an_edit_selects_exactly_the_tests_that_executed_it(
        clone: Path, truth_run: dict[str, Any], serial_map: int) -> None:
    base = corpus.git("rev-parse", "HEAD", cwd=clone).strip()
    suite = sorted(truth_run["collected"])
    try:
        for locator in EDITED:
            function = truth_run["functions"][locator]
            expected = truth_mod.truth(function, truth_run["per_line"])
            assert expected, locator  # chosen because some test runs it
            corpus.git("reset", "-q", "--hard", base, cwd=clone)
            envelope = _edit_and_reverify(clone, function)
            assert envelope["data"]["selection"]["basis"] == "map", envelope["warnings"]
            selected = evaluate.selected_ids(evaluate.test_commands(envelope), suite)
            assert selected == expected, (locator, sorted(selected ^ expected)[:10])
    finally:
        corpus.git("reset", "-q", "--hard", base, cwd=clone)


@needs_plugin
def test_xdist_records_the_same_map(clone: Path, serial_map: int, xdist_map: int) -> None:
    assert xdist_map != serial_map
    assert _hits(clone, xdist_map) == _hits(clone, serial_map)
