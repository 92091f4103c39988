"""warpline's pytest plugin (entry point ``pytest11: warpline``): hooks only.

Inactive unless asked: ``--warpline-record`` (or ``WARPLINE_RECORD=1``) records a test map,
``--warpline-select[=REV_RANGE]`` deselects every test the change does not need,
``--warpline-verify KIND`` records ``verify_record`` for HEAD when the run passes (and its
receipt backs the pass). When warpline is asked for or in use, every run leaves a receipt
(``warpline.pytest_plugin.runwatch``). The work is in pytest's runner row
(``warpline.runners.pytest_session``, ``pytest_receipt``) and the service layer
(``service.testing.select_plan``, ``service.admin.backing``, ``service.admin.ci``); this
module adapts pytest's lifecycle to it (see docs/test-map.md, docs/runners.md).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from warpline.pytest_plugin.items import fixture_key, partial_reasons, shared_fixtures
from warpline.pytest_plugin.runwatch import SELECTED, RunWatch
from warpline.runners.pytest_command import wanted
from warpline.runners.pytest_session import RecordSession, Where, record_requested
from warpline.runners.receipt import selection_facts, store_in_use

_KEY = pytest.StashKey["_Recording"]()
_RUNNER = "pytest"  # this plugin's row of the table of runners


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("warpline", "warpline test map and selection")
    group.addoption("--warpline-record", action="store_true", default=False,
                    help="record which entities each test executes into warpline's store "
                         "(also WARPLINE_RECORD=1)")
    group.addoption("--warpline-select", nargs="?", const="", default=None,
                    metavar="REV_RANGE",
                    help="run only the tests the change needs: REV_RANGE (default: the "
                         "commits not on the upstream) plus the working tree")
    group.addoption("--warpline-verify", default=None, metavar="KIND",
                    help="when the run passes, record verify_record KIND for HEAD")


class _Recording:
    """The recording hooks, registered only when recording."""

    def __init__(self, session: RecordSession) -> None:
        self.session = session
        self.items_collected: int | None = None
        self.deselected = 0
        self.partial: list[str] = []
        self.controller = False

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if session.config.pluginmanager.has_plugin("dsession"):
            self.controller = True
            self.session.as_controller()

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item,
                                nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
        recorder = self.session.recorder
        node_id = self.session.where.repo_id(item.nodeid)
        if recorder is not None:
            recorder.begin_test(node_id)
        try:
            return (yield)
        finally:
            if recorder is not None:
                recorder.uses_shared(node_id, shared_fixtures(item))
                recorder.end_test()

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Generator[None, Any, Any]:
        recorder = self.session.recorder
        shared = recorder is not None and fixturedef.scope != "function"
        if shared and recorder is not None:
            recorder.begin_shared(fixture_key(fixturedef))
        try:
            return (yield)
        finally:
            if shared and recorder is not None:
                recorder.end_shared()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        recorder = self.session.recorder
        if recorder is None:
            return
        node_id = self.session.where.repo_id(report.nodeid)
        if report.failed:
            recorder.outcome(node_id, "failed")
        elif report.when == "call" or (report.skipped and report.when == "setup"):
            recorder.outcome(node_id, report.outcome)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        self.items_collected = len(items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {})
        payload = output.get("warpline_recording")
        if payload:
            self.session.worker_done(payload)
        # Every worker collects (and deselects) the whole suite: the same counts.
        self.deselected = max(self.deselected, int(output.get("warpline_deselected", 0)))
        if output.get("warpline_collected") is not None:
            self.items_collected = max(self.items_collected or 0,
                                       int(output["warpline_collected"]))

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session,
                             exitstatus: int) -> Generator[None, Any, None]:
        yield
        config = session.config
        if hasattr(config, "workerinput"):  # an xdist worker: hand it to the controller
            recording = self.session.local_recording()
            output = config.workeroutput  # type: ignore[attr-defined]
            if recording is not None:
                output["warpline_recording"] = recording.to_json()
            output["warpline_deselected"] = self.deselected
            output["warpline_collected"] = self.items_collected
            return
        partial = partial_reasons(config, session, self.deselected)
        try:
            row = self.session.finish(self.items_collected, partial)
        except Exception as exc:  # never fail the user's test run over the map
            say(config, f"warpline: the test map was not recorded: {exc}")
            return
        say(config, f"warpline: test map {row.id} recorded at {row.commit_sha[:12]}: "
                    f"{row.test_count} tests, {row.entity_count} entities, "
                    f"{row.hit_count} test-entity links"
                    + (f" (partial: {'; '.join(partial)})" if partial else ""))


_SUMMARY = pytest.StashKey[list[str]]()


def say(config: pytest.Config, text: str) -> None:
    """A line for the end of the run, printed on its own line in pytest's terminal
    summary (``pytest_terminal_summary``), never glued to the progress line."""
    config.stash.setdefault(_SUMMARY, []).append(text)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    lines = config.stash.get(_SUMMARY, [])
    if lines:
        terminalreporter.ensure_newline()
        for line in lines:
            terminalreporter.write_line(line)
        lines.clear()


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser,
                                  args: list[str]) -> None:
    """Start tracing before conftest files import the project (their module-level code
    counts too)."""
    namespace = early_config.known_args_namespace
    if not record_requested(bool(getattr(namespace, "warpline_record", False))):
        return
    from warpline.runners.pytest_coverage import Recorder

    if Recorder.another_tracer_running():
        early_config.issue_config_time_warning(pytest.PytestConfigWarning(
            "warpline: another coverage tracer is running (pytest-cov?): no test map is "
            "recorded. Use `warpline import-coverage .coverage` with --cov-context=test."),
            stacklevel=2)
        return
    where = Where.find(Path(early_config.rootpath))
    if where is None:
        early_config.issue_config_time_warning(pytest.PytestConfigWarning(
            "warpline: the pytest rootdir is not inside a git work tree: no test map is "
            "recorded."), stacklevel=2)
        return
    plugin = _Recording(RecordSession.start(where))
    early_config.stash[_KEY] = plugin
    early_config.pluginmanager.register(plugin, "warpline-recording")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    rev_range = config.getoption("warpline_select")
    if rev_range is None:
        return
    where = Where.find(Path(config.rootpath))
    if where is None:
        raise pytest.UsageError("--warpline-select: the pytest rootdir is not inside a git "
                                "work tree.")
    from warpline.errors import InternalError, WarplineError
    from warpline.service.testing.select_plan import plan

    if not rev_range:
        rev_range = _ci_range(config, where)
        if rev_range is None:
            return
    try:
        planned = plan(where.root, rev_range or None)
    except InternalError as exc:
        _note(config, f"warpline: no selection ({exc.hint}); running every test.")
        return
    except WarplineError as exc:
        raise pytest.UsageError(f"--warpline-select: {exc.code}: {exc.hint}") from exc
    for warning in planned["warnings"]:
        _note(config, f"warpline: {warning}")
    selection = planned["selection"]
    nothing = _nothing_to_run(selection)
    if nothing:
        # What reverify, its formats and `warpline ci` say: nothing to run. No verification
        # can come of it: a run of no test backs no pass (``backing``: nothing_ran).
        if items:
            config.hook.pytest_deselected(items=list(items))
            items[:] = []
        config.stash[_NOTHING_TO_RUN] = True
        _note(config, f"warpline: {nothing} in {planned['scope']}: no test to run.")
        return
    whole = [r for r in selection.get("runners") or []
             if r.get("runner") == _RUNNER and r.get("whole_suite")]
    if planned["changed"] and (selection["basis"] == "none" or whole):
        _note(config, "warpline: " + ("configuration the tests read changed" if whole and
                                      selection.get("non_code") else
                                      "no test is known to exercise the changes")
              + ": running every test.")
        return
    chosen = set(planned["tests"])
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        (keep if wanted(where.repo_id(item.nodeid), chosen) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
        config.stash[SELECTED] = selection_facts(selection, rev_range or planned["scope"])
    _note(config, f"warpline: selected {len(keep)} of {len(keep) + len(drop)} tests for "
                  f"{planned['scope']} (basis {selection['basis']}"
                  + (f", map {selection['map_commit'][:12]}" if selection["map_commit"] else "")
                  + ").")


def _nothing_to_run(selection: dict[str, Any]) -> str:
    """Why the selection runs no test although changes exist ("" when it runs some)."""
    if selection.get("cosmetic_only"):
        return "every change is cosmetic (comments, layout, docstrings)"
    if not selection.get("nothing_to_run"):
        return ""
    if selection.get("dropped_tests"):
        return "every selected test is gone from the work tree"
    return "every change is documentation or CI configuration"


_NOTHING_TO_RUN = pytest.StashKey[bool]()
_NOTHING_KEY = "warpline_nothing_to_run"


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """Under xdist the workers select: the controller learns that nothing was to run."""
    if getattr(node, "workeroutput", {}).get(_NOTHING_KEY):
        node.config.stash[_NOTHING_TO_RUN] = True


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A selection with nothing to run is a success, not pytest's "no tests collected"."""
    config = session.config
    nothing = config.stash.get(_NOTHING_TO_RUN, False)
    if hasattr(config, "workerinput"):
        config.workeroutput[_NOTHING_KEY] = nothing  # type: ignore[attr-defined]
    elif nothing and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK


def _note(config: pytest.Config, text: str) -> None:
    notes: list[str] = config.stash.setdefault(_NOTES, [])
    notes.append(text)


_NOTES = pytest.StashKey[list[str]]()


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    notes: list[str] = config.stash.get(_NOTES, [])
    return list(notes)


def pytest_configure(config: pytest.Config) -> None:
    """Watch the run (its receipt backs ``--warpline-verify`` and ``warpline ci --record``)
    when warpline is asked for or in use in this repository."""
    asked = any(config.getoption(name, None) not in (None, False) for name in
                ("warpline_record", "warpline_select", "warpline_verify"))
    if not asked and not record_requested(False) and not store_in_use(config.rootpath):
        return
    where = Where.find(Path(config.rootpath))
    if where is not None:
        config.pluginmanager.register(RunWatch(where, config), "warpline-runwatch")


def _ci_range(config: pytest.Config, where: Where) -> str | None:
    """In a CI job, the job's range (the resolver ``warpline ci`` uses); "" outside CI
    (the default range); None when the CI range cannot be found (every test runs)."""
    from warpline.service.admin.ci import ci_rev_range

    found, why = ci_rev_range(where.root, where.repo)
    if found is None and why:
        _note(config, f"warpline: no selection ({why}); running every test.")
        return None
    if found:
        _note(config, f"warpline: {why}")
    return found or ""
