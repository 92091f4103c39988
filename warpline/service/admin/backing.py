"""Which test run backs a pass: the rule ``pytest --warpline-verify`` and ``warpline ci
--record`` apply before they record one (receipts: ``warpline.runners.receipt``).

Only sealed receipts (``runners.receipt_seal``: written with the store's receipt key by the
runner's watch, not by the code under test) of runs at the tested commit over its own tree
(``clean``: ``git status``, index flags, and every file the run loaded) count. The newest
of them decides: it must have exited 0, run at least one test and failed none. A failing
run at that commit is cleared only by a *whole-suite* pass after it: a narrower run may not
have run the test that failed. Anything else is ``unbacked_pass`` with ``details.reason``:

``no_receipt`` (no run at that commit left one), ``other_commit`` (the run tested another
commit), ``dirty_tree`` (only runs over uncommitted changes), ``run_failed`` (the newest run
failed), ``nothing_ran``, ``earlier_failure``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warpline.errors import UnbackedPass
from warpline.runners import receipt_seal
from warpline.store import receipts
from warpline.store.db import Store

_FIX = ("Run the tests at this commit with warpline installed (pytest leaves a receipt in "
        ".weft/warpline/ when warpline is in use or a --warpline-* option is given; for a "
        "runner without a plugin, such as go test, `warpline run-tests` does), then record "
        "again; `warpline verify-record` records an attestation instead.")


_COLUMNS = ("id", "commit", "clean", "exit_status", "finished_at")


def _facts(receipt: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in receipt.items() if k not in _COLUMNS}


def _failed(receipt: dict[str, Any]) -> bool:
    return receipt["exit_status"] != 0 or int(receipt.get("tests_failed") or 0) > 0


def _how_it_failed(receipt: dict[str, Any]) -> str:
    """How a run failed, in words: its failed tests, or that it stopped before any failed."""
    failed = receipt.get("failed_tests") or []
    if failed or int(receipt.get("tests_failed") or 0):
        return (f"did not pass: {receipt.get('tests_failed')} tests failed "
                f"({', '.join(failed)[:300]})")
    return (f"did not pass: it ended with exit status {receipt['exit_status']} and no failed "
            "test, so it stopped before its tests (a usage or configuration error, a "
            "collection error, no test collected, or an interruption: its output says which)")


def _refuse(reason: str, hint: str, sha: str, **details: Any) -> UnbackedPass:
    return UnbackedPass(f"{hint} {_FIX}", field="commit", value=sha,
                        details={"reason": reason, **details})


def evidence(receipt: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(extent, run facts)`` a record carries, from the receipt that backs it."""
    run = {key: receipt.get(key) for key in (
        "tests_collected", "tests_run", "tests_passed", "tests_failed", "tests_skipped")}
    run["tested_commit"] = receipt["commit"]
    run["runner"] = receipt.get("runner")
    run["rootdir"] = receipt.get("rootdir")
    run["finished_at"] = receipt.get("finished_at")
    run["selection"] = receipt.get("selection")
    return str(receipt.get("extent") or "selection"), run


def backing_receipt(root: Path, sha: str) -> dict[str, Any]:
    """The receipt that backs a pass of ``sha``; raises ``UnbackedPass`` when none does."""
    with Store.open(root) as store:
        stored = receipts.for_commit(store, sha)
        last = receipts.newest(store) if not stored else None
    secret = receipt_seal.key(root, create=False)
    found = [r for r in stored if receipt_seal.holds(secret, r, _facts(r))]
    if stored and not found:
        raise _refuse("no_receipt", f"No test run at {sha[:12]} left a sealed receipt: "
                      f"{len(stored)} receipt rows there carry no valid seal (written "
                      "without the runner's key: by the code under test, copied from "
                      "elsewhere, or by an older warpline).", sha, unsealed=len(stored))
    clean = [r for r in found if r["clean"]]
    if not clean:
        if found:
            raise _refuse(
                "dirty_tree", f"Every test run at {sha[:12]} ran over uncommitted changes "
                f"({', '.join(found[0].get('dirty_paths') or [])[:200]}): none tested the "
                "commit itself.", sha)
        other = f" (the newest run was at {str(last['commit'])[:12]})" if last else ""
        raise _refuse("no_receipt", f"No test run at {sha[:12]} left a receipt{other}.",
                      sha, receipt_commit=last["commit"] if last else None)
    newest = clean[0]
    if _failed(newest):
        raise _refuse("run_failed", f"The newest test run at {sha[:12]} {_how_it_failed(newest)}.",
                      sha, failed_tests=newest.get("failed_tests") or [],
                      exit_status=newest["exit_status"])
    if not newest.get("tests_run"):
        raise _refuse("nothing_ran", f"The newest test run at {sha[:12]} ran no test.", sha)
    if newest.get("extent") == "whole_suite":
        return newest
    for receipt in clean[1:]:
        if receipt.get("extent") == "whole_suite" and not _failed(receipt):
            break
        if _failed(receipt):
            raise _refuse(
                "earlier_failure", f"A test run at {sha[:12]} failed "
                f"({', '.join(receipt.get('failed_tests') or [])[:300]}) and no whole-suite "
                "run passed after it; the newer run was narrower and may not have run the "
                "failing tests. Run the whole suite.", sha,
                failed_tests=receipt.get("failed_tests") or [])
    return newest


def parents_of(root: Path, sha: str) -> list[str]:
    """The parents a commit object names, read from the object itself: in a shallow clone
    the boundary commit shows no parents through libgit2, yet a GitHub merge commit at
    ``fetch-depth: 1`` still names the pull request's head."""
    from warpline.git.lookups import object_bytes, open_repository

    repo = open_repository(str(root))
    raw = object_bytes(repo, sha) if repo is not None else None
    if raw is None:
        return []
    out = []
    for line in raw.split(b"\n"):
        if not line:
            break
        if line.startswith(b"parent "):
            out.append(line[7:].decode("ascii", "replace").strip())
    return out


def record_backed(root: Path, target: str, tested: str, kind: str, actor: str | None,
                  *, git_note: bool = True) -> dict[str, Any]:
    """Record that ``target`` passed ``kind``, backed by the receipt of a run at ``tested``
    (the same commit, or — a GitHub pull request's job — the merge commit the runner
    tested, whose parent ``target`` is). Raises ``UnbackedPass`` when no run backs it."""
    from warpline.models.inputs import VerificationRecordInput
    from warpline.service.admin.verification import verification_record

    parents = parents_of(root, tested) if target != tested else []
    if target != tested and (target not in parents or len(parents) < 2):
        # Only the commit itself, or a merge of it (a pull request's merge commit), tested
        # its code: a child commit naming it as its one parent may have changed anything
        # (deleted the failing test).
        raise _refuse("other_commit", f"The run tested {tested[:12]}, which is neither "
                      f"{target[:12]} nor a merge of it.", target, tested_commit=tested)
    receipt = backing_receipt(root, tested)
    arguments: dict[str, Any] = {"repo": str(root), "commit": target, "kind": kind,
                                 "git_note": git_note}
    if actor:
        arguments["actor"] = actor
    params = VerificationRecordInput.model_validate(arguments)
    return verification_record(params, None, backed=evidence(receipt))
