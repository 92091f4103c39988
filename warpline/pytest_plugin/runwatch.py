"""The plugin's run watch: hooks that count what a pytest run did and leave its receipt
(``warpline.runners.receipt``), then answer ``--warpline-verify`` from that receipt
(the service's ``backing``).

Registered by ``warpline.pytest_plugin.hooks`` when a warpline option is given or the repository
has a warpline store. Under pytest-xdist, workers collect (and deselect) and send their
counts to the controller, which sees every test report and writes the one receipt.
"""

from __future__ import annotations

from typing import Any

import pytest

from warpline.pytest_plugin.items import partial_reasons, scope_reasons
from warpline.runners.pytest import PYTEST
from warpline.runners.pytest_receipt import phase_outcome
from warpline.runners.pytest_session import Where
from warpline.runners.receipt import RunWatchState, head_sha, write
from warpline.service.shared.own_files import own_paths

SELECTED = pytest.StashKey[dict[str, Any]]()  # warpline's selection, when it narrowed the run


class RunWatch:
    def __init__(self, where: Where, config: pytest.Config | None = None) -> None:
        self.where = where
        self.state = RunWatchState(commit_at_start=head_sha(where.repo), key=_key(where))
        if config is not None and config.inipath is not None:
            self.state.loaded.add(str(config.inipath))

    def pytest_plugin_registered(self, plugin: Any) -> None:
        """Every conftest module pytest loads (a historic hook: the initial ones too)."""
        path = getattr(plugin, "__file__", None)
        if isinstance(path, str) and path.endswith("conftest.py"):
            self.state.loaded.add(path)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.state.deselected += len(items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.state.collected = len(session.items)
        self.state.selection = session.config.stash.get(SELECTED, None)
        self.state.loaded.update(str(item.path) for item in session.items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = phase_outcome(report.when, report.outcome)
        if outcome is not None:
            self.state.outcome(self.where.repo_id(report.nodeid), outcome)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        sent = getattr(node, "workeroutput", {}).get("warpline_run")
        if isinstance(sent, dict):  # every worker collects the same suite
            self.state.collected = max(self.state.collected, int(sent.get("collected", 0)))
            self.state.deselected = max(self.state.deselected, int(sent.get("deselected", 0)))
            self.state.selection = self.state.selection or sent.get("selection")
            self.state.loaded.update(str(p) for p in sent.get("loaded") or [])

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        config = session.config
        if hasattr(config, "workerinput"):
            config.workeroutput["warpline_run"] = {  # type: ignore[attr-defined]
                "collected": self.state.collected, "deselected": self.state.deselected,
                "selection": self.state.selection, "loaded": sorted(self.state.loaded)}
            return
        if config.getoption("collectonly", False):
            return
        from warpline.pytest_plugin.hooks import say

        try:
            # session.exitstatus: the status the run ends with (the plugin may have
            # turned a selection with nothing to run into a success).
            receipt = write(self.where.root, self.where.repo, self.state,
                            int(session.exitstatus),
                            partial_reasons(config, session, self.state.deselected)
                            + scope_reasons(config),
                            self.where.rootdir, PYTEST,
                            own_paths(self.where.root, self.where.repo))
        except Exception as exc:  # never fail the user's test run over the receipt
            say(config, f"warpline: no run receipt was written: {exc}")
            return
        kind = config.getoption("warpline_verify")
        if kind:
            say(config, verify(self.where, receipt, str(kind)))


def _key(where: Where) -> bytes | None:
    """The store's receipt key, read before the test modules are imported."""
    from warpline.runners.receipt_seal import for_run

    return for_run(where.root)


def verify(where: Where, receipt: dict[str, Any], kind: str) -> str:
    """``--warpline-verify KIND``: record HEAD's pass when this run backs it; the line
    that says what happened."""
    from warpline.errors import WarplineError
    from warpline.service.admin.backing import record_backed

    if receipt["exit_status"] != 0:
        return (f"warpline: verify_record {kind} not recorded: the run did not pass "
                f"(exit status {receipt['exit_status']}"
                + (f", {receipt['tests_failed']} failed" if receipt.get("tests_failed") else
                   ": it stopped before its tests") + ").")
    if receipt["commit"] is None:
        return (f"warpline: verify_record {kind} not recorded: HEAD moved during the run (or "
                "there is no commit).")
    if not receipt["clean"]:
        dirty = receipt.get("dirty_paths") or []
        return (f"warpline: verify_record {kind} not recorded: the run tested uncommitted "
                f"changes ({', '.join(dirty[:3])}), not HEAD. Commit, then run again.")
    try:
        envelope = record_backed(where.root, str(receipt["commit"]), str(receipt["commit"]),
                                 kind, PYTEST.name)
    except WarplineError as exc:
        return f"warpline: verify_record {kind} not recorded: {exc.code}: {exc.hint}"
    except Exception as exc:  # the run passed; a store problem must not turn it red
        return f"warpline: verify_record {kind} not recorded: {exc}"
    data = envelope["data"]
    return (f"warpline: verify_record {kind} {data['idempotency']} for "
            f"{str(data['commit_sha'])[:12]} (scope {data['scope']}).")

