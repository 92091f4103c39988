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
from tests.test_mapsync import _extra_commit, _plant, edit_greet, mapped
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
    remote, _, shas, good = history
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
    # The same maps again import nothing: a clamped date is the same at every sync.
    assert _json(_cli(dev, "sync", "--no-push", "--json"))["maps"]["imported"] == 0
    skipped = " ".join(report["skipped"])
    assert "lone surrogate" in skipped and "clamped" in skipped
    assert "dropped 4 test(s)" in skipped
    with Store.open(dev) as store:
        rows = maps(store)
        assert max(r.recorded_at for r in rows) <= int(__import__("time").time())
        assert min(r.recorded_at for r in rows) == 0
        ids = {n for r in rows for n in read_map(store, r).tests}
    assert not any(i.startswith(("-", "@")) or "\ud800" in i for i in ids)

    edit_greet(dev)
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


# -- verification notes --------------------------------------------------------------

SRC = "def alpha():\n    return {n}\n\n\ndef beta():\n    return alpha()\n"


@pytest.fixture()
def noted(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """(bare remote, CI clone, developer clone, an attacker's clone that can push the
    notes ref) of a three-commit history, each commit changing ``alpha``."""
    origin = tmp_path / "origin"
    run_git(tmp_path, "init", "-q", "-b", "main", str(origin))
    for n in range(3):
        (origin / "app").mkdir(exist_ok=True)
        (origin / "app" / "core.py").write_text(SRC.format(n=n))
        run_git(origin, "add", "-A")
        run_git(origin, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-qm",
                f"c{n}")
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(origin), str(remote))
    clones = []
    for name in ("ci", "dev", "mallory"):
        run_git(tmp_path, "clone", "-q", str(remote), str(tmp_path / name))
        run_git(tmp_path / name, "config", "user.name", name)
        run_git(tmp_path / name, "config", "user.email", f"{name}@example.com")
        clones.append(tmp_path / name)
    return remote, clones[0], clones[1], clones[2]


def _forge(clone: Path, rev: str, *lines: str) -> None:
    """Add ``lines`` to ``rev``'s note and push the notes ref, as anyone with push access."""
    sha = run_git(clone, "rev-parse", rev).strip()
    body = clone / "note.txt"
    body.write_text("\n".join(lines) + "\n")
    run_git(clone, "notes", "--ref=refs/notes/warpline", "add", "-f", "-F", str(body), sha)
    run_git(clone, "push", "-q", "-f", "origin", "refs/notes/warpline:refs/notes/warpline")


def _line(commit: str, **fields: Any) -> str:
    obj = {"v": 1, "type": "verification", "commit": commit, "kind": "test_pass",
           "source": "warpline", "actor": "mallory", "verified_at": 1_760_000_000,
           "scope": "attested", **fields}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def test_hostile_note_lines_are_named_and_every_command_answers(
        noted: tuple[Path, Path, Path, Path]) -> None:
    _, _, dev, mallory = noted
    head = run_git(mallory, "rev-parse", "HEAD").strip()
    deep = "[" * 2000 + "]" * 2000  # a 2,000-deep line within the line bound
    _forge(mallory, "HEAD", _line(head, verified_at=10**12), deep,
           _line(head, actor="\ud800 mallory"))
    parent = run_git(mallory, "rev-parse", "HEAD~1").strip()
    _forge(mallory, "HEAD~1", _line(parent) + "\n" + "x" * (1 << 20))  # a 1 MiB note
    _json(_cli(dev, "sync", "--no-push", "--json"))
    answer = _json(_cli(dev, "reverify", "HEAD~1..HEAD", "--json"))
    warning = next(w for w in answer["warnings"] if "refs/notes/warpline" in w)
    for words in ("in the future", "nested past", "lone surrogate", "not read"):
        assert words in warning, warning
    assert {i["verification"]["state"] for i in answer["data"]["items"]} == {"unverified"}
    recorded = _json(_cli(dev, "verify-record", "--commit", "HEAD", "--kind", "test_pass",
                          "--json"))
    assert recorded["data"]["idempotency"] == "recorded"
    assert recorded["data"]["actor"] != "\ud800 mallory"
    ci_run = _cli(dev, "ci", "--base", "HEAD~1", "--markdown", str(dev.parent / "r.md"),
                  "--json")
    assert ci_run.returncode == 0, ci_run.stderr


def _keypair(tmp: Path, name: str) -> tuple[Path, str]:
    key = tmp / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)],
                   check=True, capture_output=True)
    return key, (tmp / f"{name}.pub").read_text().strip()


@pytest.mark.skipif(not __import__("shutil").which("ssh-keygen"),
                    reason="ssh-keygen (openssh-client) is not installed")
def test_freshness_says_whose_claim_a_pass_is_and_checks_signed_records(
        noted: tuple[Path, Path, Path, Path], tmp_path: Path) -> None:
    _, ci, dev, mallory = noted
    key, public = _keypair(tmp_path, "ci-key")
    _, other = _keypair(tmp_path, "stranger-key")
    for name, value in (("warpline.signRecords", "true"), ("gpg.format", "ssh"),
                        ("user.signingKey", str(key))):
        run_git(ci, "config", name, value)
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"ci@example.com {public}\nstranger@example.com {other}\n")
    run_git(dev, "config", "gpg.ssh.allowedSignersFile", str(allowed))

    # A forged pass (anyone who can push the notes ref can write one).
    head = run_git(mallory, "rev-parse", "HEAD").strip()
    _forge(mallory, "HEAD", _line(head))
    assert _json(_cli(dev, "sync", "--no-push", "--json"))["fetched"] is True

    def verification(*kinds: str) -> dict[str, Any]:
        flags = [f"--verified-kind={k}" for k in kinds]
        answer = _json(_cli(dev, "reverify", "HEAD~1..HEAD", "--json", *flags))
        return dict(answer["data"]["items"][0]["verification"])

    forged = verification()
    assert (forged["state"], forged["claimed_by"], forged["signer"]) == (
        "fresh", "remote_unverified", None)
    markdown = _cli(dev, "reverify", "HEAD~1..HEAD", "--format", "markdown")
    assert "unverified remote claim" in markdown.stdout

    # The CI records the same pass, signed with its configured key, and pushes it.
    recorded = _json(_cli(ci, "verify-record", "--commit", "HEAD", "--kind", "test_pass",
                          "--json"))
    assert recorded["data"]["notes_ref"] == "refs/notes/warpline", recorded["warnings"]
    _json(_cli(ci, "sync", "--json"))
    note = run_git(ci, "notes", "--ref=refs/notes/warpline", "show", "HEAD")
    signed = next(json.loads(line) for line in note.splitlines() if '"sig"' in line)
    assert signed["sig"].startswith("-----BEGIN SSH SIGNATURE-----")
    _json(_cli(dev, "sync", "--no-push", "--json"))
    good = verification()
    assert (good["state"], good["last_verified_commit"], good["claimed_by"],
            good["signer"]) == ("fresh", head, "ci_identity", "ci@example.com")

    # A real signature copied onto another line vouches for nothing.
    copied = json.loads(_line(head, kind="deploy_pass"))
    copied["sig"] = signed["sig"]
    run_git(mallory, "fetch", "-q", "origin", "+refs/notes/warpline:refs/notes/warpline")
    text = run_git(mallory, "notes", "--ref=refs/notes/warpline", "show", "HEAD")
    _forge(mallory, "HEAD", *text.splitlines(), json.dumps(copied, sort_keys=True))
    _json(_cli(dev, "sync", "--no-push", "--json"))
    assert verification("deploy_pass")["claimed_by"] == "remote_unverified"
    assert verification("test_pass")["claimed_by"] == "ci_identity"

    # A clone that trusts no signer (no allowed signers file) sees a remote claim.
    run_git(dev, "config", "--unset", "gpg.ssh.allowedSignersFile")
    assert verification()["claimed_by"] == "remote_unverified"
    # This clone's own record is its own claim.
    _json(_cli(dev, "verify-record", "--commit", "HEAD", "--kind", "lint", "--json"))
    assert verification("lint")["claimed_by"] == "local"


def test_a_configured_signature_that_cannot_be_made_writes_no_unsigned_note(
        noted: tuple[Path, Path, Path, Path], tmp_path: Path) -> None:
    _, ci, _, _ = noted
    for name, value in (("warpline.signRecords", "true"), ("gpg.format", "ssh"),
                        ("user.signingKey", str(tmp_path / "no-such-key"))):
        run_git(ci, "config", name, value)
    recorded = _json(_cli(ci, "verify-record", "--commit", "HEAD", "--kind", "test_pass",
                          "--json"))
    assert recorded["data"]["idempotency"] == "recorded"
    assert recorded["data"]["notes_ref"] is None and recorded["warnings"]
    listed = subprocess.run(["git", "notes", "--ref=refs/notes/warpline", "list"], cwd=ci,
                            capture_output=True, text=True)
    assert listed.stdout.strip() == ""
