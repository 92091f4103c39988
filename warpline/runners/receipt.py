"""A run's receipt: what one test run warpline saw did, kept in the store (any runner: the
receipt names it; pytest's plugin writes them today, ``warpline.pytest_plugin.runwatch``).

``pytest --warpline-verify`` and ``warpline ci --record`` record a pass only when a receipt
backs it (``warpline.service.admin.backing``): the run was at the commit, on its own tree,
ran tests and failed none. The receipt says whether the run was the whole suite or a
selection (warpline's, with its basis and map commit, or the user's own narrowing: ``-k``,
``-m``, explicit paths), so the record says what it proved.

Receipts are written when a warpline option is given or the repository already has a
warpline store (a project using warpline); a repository that never used warpline gets no
``.weft/``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from warpline.git.lookups import status_or_empty

if TYPE_CHECKING:
    from warpline.runners.row import Runner

MAX_LISTED = 20


def run_relevant_changes(repo: pygit2.Repository, run_input: Callable[[str], bool],
                         ours: frozenset[str] = frozenset()) -> list[str]:
    """Paths that make a run over the working tree differ from a run of HEAD: every
    tracked change (staged or not), and untracked files the runner reads (``run_input``:
    the row's; other untracked files, a report or a selection file `warpline ci` wrote,
    leave the run a run of the commit); ``.weft/``, ignored files and warpline's own
    (``ours``: the ``.mcp.json`` install wrote, as the service's ``own_files`` names them)
    never count."""
    out: list[str] = []
    for path, flags in status_or_empty(repo).items():
        if path == ".weft" or path.startswith(".weft/") or path in ours \
                or flags & pygit2.enums.FileStatus.IGNORED:
            continue
        if flags == pygit2.enums.FileStatus.WT_NEW and not run_input(path):
            continue
        out.append(path)
    return sorted(out)


def head_sha(repo: pygit2.Repository) -> str | None:
    if repo.head_is_unborn:
        return None
    return str(repo.head.peel(pygit2.Commit).id)


@dataclass(slots=True)
class RunWatchState:
    """Counts of one run, gathered by whatever watched it (pytest's: the plugin's hooks,
    ``warpline.pytest_plugin.runwatch``). Test ids are repo-relative, the runner's own."""

    started_at: int = field(default_factory=lambda: int(time.time()))
    commit_at_start: str | None = None
    collected: int = 0  # kept after every deselection
    deselected: int = 0
    outcomes: dict[str, str] = field(default_factory=dict)  # test id -> outcome
    selection: dict[str, Any] | None = None  # warpline's own selection, when it selected
    # Files the run loaded (absolute paths: configuration, conftest files, test modules):
    # each must be the commit's own bytes, ignored or not (``receipt_tree``).
    loaded: set[str] = field(default_factory=set)
    # The store's receipt key, read when the run started (``receipt_seal``): what seals
    # the receipt, so rows the code under test writes are not believed.
    key: bytes | None = None

    def outcome(self, test_id: str, outcome: str) -> None:
        """A test's outcome (passed, failed, skipped); a failure sticks."""
        if outcome == "failed" or self.outcomes.get(test_id) != "failed":
            self.outcomes[test_id] = outcome

    def counts(self) -> dict[str, int]:
        values = list(self.outcomes.values())
        passed, failed = values.count("passed"), values.count("failed")
        return {"tests_collected": self.collected + self.deselected,
                "tests_deselected": self.deselected,
                "tests_run": passed + failed, "tests_passed": passed,
                "tests_failed": failed, "tests_skipped": values.count("skipped")}


def facts(state: RunWatchState, reasons: list[str], rootdir: str,
          runner: str) -> dict[str, Any]:
    """The receipt's facts: the runner's name (a ``warpline.runners`` row), counts, failed
    tests, and the run's extent."""
    out: dict[str, Any] = {"v": 1, "runner": runner, "rootdir": rootdir,
                           "started_at": state.started_at, **state.counts(),
                           "failed_tests": sorted(n for n, o in state.outcomes.items()
                                                  if o == "failed")[:MAX_LISTED]}
    own = [r for r in reasons if not r.endswith("tests deselected")]
    if state.selection is not None:
        out["extent"] = "selection"
        out["selection"] = {**state.selection, "reasons": own}
    elif reasons:
        out["extent"] = "selection"
        out["selection"] = {"basis": "user", "map_commit": None, "rev_range": None,
                            "tests_selected": state.collected, "tests_known": None,
                            "reasons": reasons}
    else:
        out["extent"] = "whole_suite"
        out["selection"] = None
    return out


def write(root: Path, repo: pygit2.Repository, state: RunWatchState, exit_status: int,
          reasons: list[str], rootdir: str, runner: Runner,
          ours: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Store the receipt of a run of ``runner``; returns it (with ``id``, ``commit``,
    ``clean``). ``ours``: warpline's own files in the work tree, which never make a run
    dirty."""
    from warpline.runners import receipt_seal, receipt_tree
    from warpline.store import receipts
    from warpline.store.db import Store

    commit = head_sha(repo)
    if commit != state.commit_at_start:  # HEAD moved during the run: it tested neither
        commit = None
    dirty = run_relevant_changes(repo, runner.run_input, ours)
    dirty += receipt_tree.hidden_by_index_flags(root, repo)
    dirty += [p for p in receipt_tree.loaded_not_committed(root, repo, state.loaded)
              if p.split(" ", 1)[0] not in dirty]
    body = facts(state, reasons, rootdir, runner.name)
    body["dirty_paths"] = dirty[:MAX_LISTED]
    finished = int(time.time())
    if state.key is not None:
        body[receipt_seal.SEAL] = receipt_seal.seal(state.key, commit, not dirty,
                                                    int(exit_status), finished, body)
    with Store.open(root) as store:
        row_id = receipts.add(store, commit, not dirty, int(exit_status), finished, body)
    return {**body, "id": row_id, "commit": commit, "clean": not dirty,
            "exit_status": int(exit_status), "finished_at": finished}


def store_in_use(rootpath: Path) -> bool:
    """Whether the repository around ``rootpath`` has a warpline store (so warpline is in
    use there and a receipt is wanted)."""
    from warpline.git.lookups import open_repository
    from warpline.store.db import store_path

    repo = open_repository(str(rootpath))
    if repo is None:
        return False
    return repo.workdir is not None and store_path(Path(repo.workdir)).exists()


def selection_facts(selection: dict[str, Any], rev_range: str | None) -> dict[str, Any]:
    """What a receipt keeps of warpline's selection (the wire ``data.selection``)."""
    return {"basis": selection.get("basis"), "map_commit": selection.get("map_commit"),
            "rev_range": rev_range, "tests_selected": selection.get("tests_selected"),
            "tests_known": selection.get("tests_known")}
