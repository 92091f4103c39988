"""Lineage pairing past the rename limit stays linear (issue 29, item 3): a commit that
moves thousands of files git no longer pairs leaves every definition removed and added,
and pairing those must not rank every removed one against every added one (identical
files: generated code, empty ``__init__``s; or one name shared by all: ``Meta``, ``test``).

Real repositories; the work is counted (pairs ranked, pairs compared), never timed."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git import lineage
from warpline.git.attribution import commit_changes
from warpline.git.repo import resolve_commit

SAME = ("def func(x):\n    y = x + 1\n    return y * 2\n\n\n"
        "class C:\n    def m(self):\n        return 1\n")


def _moved_all(tmp_path: Path, files: dict[str, str],
               edits: dict[str, str] | None = None) -> tuple[FixtureRepo, str]:
    """Commit ``files``, then one commit moving each under ``new/`` (with ``edits``, by
    new path)."""
    r = FixtureRepo(tmp_path / "repo")
    r.commit(files, "add")  # type: ignore[arg-type]
    sha = r.commit(edits or {}, "move them all",  # type: ignore[arg-type]
                   renames={p: "new/" + p for p in files})
    return r, sha


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    calls = [0]
    real = getattr(lineage, name)

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(lineage, name, counted)
    return calls


def test_identical_files_past_the_rename_limit_pair_in_linear_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    count = 400
    monkeypatch.setenv("WARPLINE_RENAME_LIMIT", "50")
    r, sha = _moved_all(tmp_path, {f"old/m{i}.py": SAME for i in range(count)})
    ranked = _counting(monkeypatch, "_ranked")
    changes = commit_changes(r.repo, resolve_commit(r.repo, sha))
    assert ranked[0] < 10 * count  # every pair of 400 x 400 ranked was 320,000
    assert changes.limits_hit == ("rename_limit",)
    files = [c for c in changes.changes if c.kind == "file"]
    assert {c.change_kind for c in files} >= {"removed", "added"}
    # Every definition still finds its twin: same name, one-to-one, nothing left over.
    defs = [c for c in changes.changes if c.kind in ("function", "class")]
    assert defs and all(c.change_kind == "moved" for c in defs)
    assert len({c.previous_locator for c in defs}) == len(defs)


def test_one_name_shared_by_thousands_is_bounded_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    count = 300
    monkeypatch.setenv("WARPLINE_RENAME_LIMIT", "20")
    monkeypatch.setattr(lineage, "_NAME_STEPS", 5_000)
    body = "def func(x):\n    y = x + {}\n    z = y - {}\n    return z * {}\n"
    files = {f"old/m{i}.py": body.format(i, i, i) for i in range(count)}
    files.update({f"old/n{i}.py": f"def other{i}():\n    return {i}\n" for i in range(count)})
    # Moved and edited: no exact text left, every ``func`` is a same-name candidate.
    r, sha = _moved_all(tmp_path, files, {f"new/old/m{i}.py": body.format(i, i, -i)
                                          for i in range(count)})
    compared = _counting(monkeypatch, "_compare")
    changes = commit_changes(r.repo, resolve_commit(r.repo, sha))
    assert compared[0] <= 5_000 + count  # 300 x 300 same-named pairs were all scored
    assert "lineage_limit" in changes.limits_hit


def test_a_rename_past_the_limit_is_named_on_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WARPLINE_RENAME_LIMIT", "20")
    r, sha = _moved_all(tmp_path, {f"old/m{i}.py": SAME for i in range(200)})
    from warpline.registry import call_tool

    env = call_tool("changed", {"repo": str(r.path), "rev_range": "HEAD", "limit": 500})
    assert_valid_envelope(env)
    assert any(sha[:12] in w and "WARPLINE_RENAME_LIMIT" in w for w in env["warnings"])
    kinds = {(i["entity"]["kind"], i["change_kind"]) for i in env["data"]["items"]}
    assert {("module", "removed"), ("module", "added")} <= kinds


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bucketed_exact_pairing_matches_ranking_every_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
) -> None:
    """Equal texts under several names, in several folders, dunders and short bodies
    among them: pairing by buckets gives exactly what ranking every pair gives."""
    rng = random.Random(seed)
    bodies = ["def {n}(x):\n    y = x + 1\n    return y * 2\n", "def {n}():\n    pass\n",
              "class {n}:\n    def __init__(self):\n        self.a = 1\n",
              "class {n}:\n    def __eq__(self, o):\n        return True\n"]
    files = {}
    for i in range(150):
        folder = "old/sub" if i % 3 == 0 else "old"
        files[f"{folder}/m{i}.py"] = "\n".join(
            rng.choice(bodies).format(n=rng.choice(["f", "g", "Foo"]) + rng.choice(["", "1"]))
            for _ in range(rng.randint(1, 3)))
    monkeypatch.setenv("WARPLINE_RENAME_LIMIT", "10")
    r, sha = _moved_all(tmp_path, files)
    commit = resolve_commit(r.repo, sha)
    monkeypatch.setattr(lineage, "_SMALL_GROUP", 0)
    bucketed = commit_changes(r.repo, commit)
    monkeypatch.setattr(lineage, "_SMALL_GROUP", 10**9)
    ranked = commit_changes(r.repo, commit)
    assert sorted(map(repr, bucketed.changes)) == sorted(map(repr, ranked.changes))
    assert any(c.change_kind == "moved" and c.kind == "function" for c in ranked.changes)
