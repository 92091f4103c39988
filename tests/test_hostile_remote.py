"""A hostile remote (issue 38 items 4 and 5): what ``refs/warpline/testmaps`` and
``refs/notes/warpline`` hold was written by someone else. Each case is served from a real
bare remote and fetched by ``warpline sync``, ``warpline ci`` and answered by ``warpline
reverify`` in real processes: every command answers (exit 0), the bad entries are named,
and nothing a remote claims breaks a later answer. Sizes are small here; the big-memory
cases (64 x 32 MiB, a map at the decoder's bounds, a 600 MB note) are measured in
``bench/bench_hostile_remote.py``."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.gitfixture import run_git
from tests.test_mapsync import _extra_commit, _plant, mapped
from warpline.service.admin import mapsync
from warpline.store.db import Store
from warpline.store.testmaps import KEEP_MAPS, RecordedMap, maps, read_map, write_map
from warpline.testmap import wire

__all__ = ["mapped"]


def _cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("GITHUB_", "GITLAB_", "CI_", "RUNNER_")) and k != "CI"}
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                          env={**clean, "NO_COLOR": "1", "WARPLINE_EDGE_SOURCES": "builtin",
                               "WARPLINE_INTERACTIVE_BUDGET_S": "30", **env})


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return dict(json.loads(done.stdout))


def _doc(recorded: RecordedMap, **changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(zlib.decompress(wire.encode(recorded, 1_700_000_000)))
    document.update(changes)
    return document


def _blob(document: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(document, ensure_ascii=True).encode(), 9)


def _at(recorded: RecordedMap, sha: str) -> RecordedMap:
    return RecordedMap(sha, recorded.source, recorded.tracer_version, recorded.rootdir,
                       tests=dict(recorded.tests), entity_paths=dict(recorded.entity_paths),
                       at_import=set(recorded.at_import), hits=dict(recorded.hits))


@pytest.fixture()
def history(mapped: tuple[Path, Path]) -> tuple[Path, Path, list[str], RecordedMap]:
    """(remote, CI clone, five commits both have, newest first, the CI's own map)."""
    remote, ci = mapped
    with Store.open(ci) as store:
        good = read_map(store, maps(store)[0])
    shas = [_extra_commit(ci, n) for n in range(4)][::-1]
    shas.append(run_git(ci, "rev-parse", "HEAD~4").strip())
    run_git(ci, "push", "-q", "origin", "HEAD:main")
    return remote, ci, shas, good


def test_hostile_map_strings_dates_and_node_ids_are_named_and_every_command_answers(
        history: tuple[Path, Path, list[str], RecordedMap], tmp_path: Path) -> None:
    remote, ci, shas, good = history
    base = _doc(_at(good, shas[0]))
    test_row, hit_row = base["tests"][0], base["hits"][0]
    options = [["--co", "tests/x.py", "passed"], ["-pno:warpline", "tests/x.py", "passed"],
               ["@args.txt", "tests/x.py", "passed"], ["tests/\ud800.py::t", "tests/x.py",
                                                       "passed"]]
    base["tests"] = [*base["tests"], *options]
    base["hits"] = [*base["hits"], *[hit_row] * len(options)]
    assert test_row
    surrogate = _doc(_at(good, shas[1]), source="pytest\udc80")
    future = _doc(_at(good, shas[2]), recorded_at=10**12)  # year 33658
    past = _doc(_at(good, shas[3]), recorded_at=-10**9)  # 1938
    _plant(remote, tmp_path, {f"{shas[0]}.zlib": _blob(base),
                              f"{shas[1]}.zlib": _blob(surrogate),
                              f"{shas[2]}.zlib": _blob(future),
                              f"{shas[3]}.zlib": _blob(past)})
    dev = tmp_path / "dev"
    run_git(tmp_path, "clone", "-q", str(remote), str(dev))
    report = _json(_cli(dev, "sync", "--no-push", "--json"))["maps"]
    assert report["imported"] == 3
    skipped = " ".join(report["skipped"])
    assert "lone surrogate" in skipped and "clamped" in skipped
    assert "dropped 4 test(s)" in skipped
    with Store.open(dev) as store:
        rows = maps(store)
        assert max(r.recorded_at for r in rows) <= int(__import__("time").time())
        assert min(r.recorded_at for r in rows) == 0
        ids = {n for r in rows for n in read_map(store, r).tests}
    assert not any(i.startswith(("-", "@")) or "\ud800" in i for i in ids)

    run_git(dev, "config", "user.name", "Dev")
    run_git(dev, "config", "user.email", "dev@example.com")
    views = dev / "app" / "views.py"
    views.write_text(views.read_text().replace('return "hello " + who',
                                               'who = str(who)\n    return "hello " + who'))
    run_git(dev, "commit", "-qam", "greet: str")
    answer = _json(_cli(dev, "reverify", "HEAD~1..HEAD", "--json"))
    assert answer["data"]["selection"]["basis"] == "map"
    printed = _cli(dev, "reverify", "HEAD~1..HEAD", "--format", "pytest")
    assert printed.returncode == 0 and "--co" not in printed.stdout
    selection = tmp_path / "selection.txt"
    ci_run = _json(_cli(dev, "ci", "--base", "HEAD~1", "--markdown", str(tmp_path / "r.md"),
                        "--selection", str(selection), "--json"))
    assert ci_run["notes"]["maps"]["skipped"] is not None
    assert "-pno" not in selection.read_text() and "--co" not in selection.read_text()


def test_a_remote_never_evicts_local_maps_nor_leaves_maps_of_other_histories(
        history: tuple[Path, Path, list[str], RecordedMap], tmp_path: Path) -> None:
    remote, ci, shas, good = history
    with Store.open(ci) as store:  # this clone's own maps fill its room
        for n in range(KEEP_MAPS - 1):
            write_map(store, _at(good, shas[n % len(shas)]), now=1_700_000_000 + n)
        local = {r.id for r in maps(store)}
    assert len(local) == KEEP_MAPS
    strangers = {f"{secrets.token_hex(20)}.zlib": wire.encode(_at(good, "0" * 40), 1)
                 for _ in range(KEEP_MAPS)}
    strangers = {name: _blob(_doc(_at(good, name[:40]), recorded_at=4_000_000_000))
                 for name in strangers}
    ours = {f"{sha}.zlib": _blob(_doc(_at(good, sha), recorded_at=4_000_000_000 + n))
            for n, sha in enumerate(shas[:4])}
    _plant(remote, tmp_path, {**strangers, **ours})
    report = _json(_cli(ci, "sync", "--no-push", "--json"))["maps"]
    assert report["imported"] == 4
    assert sum("does not have that commit" in s for s in report["skipped"]) == KEEP_MAPS
    with Store.open(ci) as store:
        kept = {r.id: r.commit_sha for r in maps(store)}
    assert local <= set(kept)  # every local map is still there
    assert set(kept.values()) <= set(shas)


def test_one_bomb_blob_behind_many_entries_is_read_once(
        history: tuple[Path, Path, list[str], RecordedMap], tmp_path: Path) -> None:
    remote, ci, shas, _ = history
    bomb = zlib.compress(b"[" * (wire.MAX_INFLATED + 10), 9)
    names = [f"{sha}.zlib" for sha in shas] + [f"{secrets.token_hex(20)}.zlib"
                                                for _ in range(64 - len(shas))]
    _plant(remote, tmp_path, dict.fromkeys(names, bomb))
    report = _json(_cli(ci, "sync", "--no-push", "--json"))["maps"]
    assert report["imported"] == 0
    assert sum("inflates past" in s for s in report["skipped"]) == 1, report["skipped"][:5]
    assert len(report["skipped"]) == 64  # the other 63 named, never inflated


def test_reading_stops_at_the_syncs_budgets(
        history: tuple[Path, Path, list[str], RecordedMap], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In process (a real remote and real git): the budgets are lowered so CI need not
    move hundreds of megabytes; the bench runs them at their real size."""
    from warpline.service.admin.sync import sync

    remote, ci, shas, good = history
    noise = {f"{sha}.zlib": secrets.token_bytes(1 << 20) for sha in shas}
    _plant(remote, tmp_path, noise)
    monkeypatch.setattr(mapsync, "READ_BYTES", 3 << 20)
    report = sync(ci, pygit2.Repository(str(ci)), "origin", push=False).maps
    assert sum("not zlib data" in s for s in report.skipped) == 3
    assert sum("over this sync's budget" in s for s in report.skipped) == len(shas) - 3

    _plant(remote, tmp_path, {f"{shas[0]}.zlib": _blob(_doc(_at(good, shas[0])))})
    monkeypatch.setattr(wire, "READ_BUDGET", 1000)
    report = sync(ci, pygit2.Repository(str(ci)), "origin", push=False).maps
    assert report.imported == 0 and any("MiB budget" in s for s in report.skipped)
