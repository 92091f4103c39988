"""The store's directory in an untrusted repository (``warpline.store.guard``): committed
links under ``.weft/`` never put the store, its log or its files outside the repository,
and a store committed to git never vouches for a clone.

Every case is a real repository committed with real ``git`` (links included), cloned with
``git clone``, and driven through the real ``warpline`` CLI in a fresh process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.hookrepo import GitRepo, cli, cli_json
from tests.hookrepo import clone as _clone
from tests.hookrepo import upstream_with as _upstream
from warpline.store.db import store_path


def _error_code(done: subprocess.CompletedProcess[str]) -> str:
    payload = json.loads(done.stdout)
    return str(payload.get("error_code") or payload.get("error", {}).get("error_code"))


# -- S2: committed symbolic links under .weft/ ------------------------------------------------

def _linked_clone(tmp_path: Path, links: dict[str, str]) -> tuple[GitRepo, Path]:
    """A clone of an upstream that commits ``links`` (path -> link target) with git."""
    upstream = _upstream(tmp_path, {})
    for name, target in links.items():
        path = upstream.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
        upstream.git("add", "-f", name)
    upstream.git("commit", "-q", "-m", "links")
    return upstream, _clone(upstream, tmp_path / "clone")


def _changed(upstream: GitRepo, clone: Path) -> subprocess.CompletedProcess[str]:
    return cli("changed", "HEAD~1..HEAD", "--repo", str(clone), "--json", env=upstream.env())


def test_a_committed_weft_link_never_puts_the_store_outside(tmp_path: Path) -> None:
    outside = tmp_path / "x"
    outside.mkdir()
    upstream, clone = _linked_clone(tmp_path, {".weft": "../x"})
    assert (clone / ".weft").is_symlink()
    done = _changed(upstream, clone)
    assert done.returncode == 1 and _error_code(done) == "store_unsafe", done.stdout
    assert list(outside.iterdir()) == []
    status = cli("status", "--repo", str(clone), "--json", env=upstream.env())
    assert "internal_error" not in status.stdout
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", [".gitignore", "warpline.db", "ingest.log"])
def test_a_committed_dangling_link_in_the_store_dir_is_never_written(
        tmp_path: Path, name: str) -> None:
    """Committed, the link is tracked state: ignored (S3), never followed. Left in the work
    tree untracked, it is refused with ``store_unsafe``."""
    from warpline.setup import ingest_log

    target = tmp_path / f"evil-{name.strip('.')}"
    upstream, clone = _linked_clone(tmp_path, {f".weft/warpline/{name}": str(target)})
    done = _changed(upstream, clone)
    assert done.returncode == 0, done.stdout
    assert any(f".weft/warpline/{name}" in w for w in json.loads(done.stdout)["warnings"])
    ingest_log.append(clone, {"hook": "test", "ok": True})
    assert not target.exists()
    assert not store_path(clone).is_relative_to(clone / ".weft")

    subprocess.run(["git", "-C", str(clone), "rm", "-q", "--cached", f".weft/warpline/{name}"],
                   check=True, timeout=60)
    assert (clone / ".weft" / "warpline" / name).is_symlink()
    done = _changed(upstream, clone)
    assert done.returncode == 1 and _error_code(done) == "store_unsafe", done.stdout
    ingest_log.append(clone, {"hook": "test", "ok": True})
    assert not target.exists()


def test_a_committed_log_link_never_appends_to_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    upstream, clone = _linked_clone(tmp_path, {".weft/warpline/ingest.log": str(victim)})
    from warpline.setup import ingest_log

    code, _ = cli_json("install", "--repo", str(clone), env=upstream.env())
    assert code == 0  # the committed log is ignored: install logs to the clone's own
    assert victim.read_text() == "precious\n"
    assert ingest_log.recent(clone)[-1]["hook"] == "install"

    subprocess.run(["git", "-C", str(clone), "rm", "-q", "--cached", ".weft/warpline/ingest.log"],
                   check=True, timeout=60)
    ingest_log.append(clone, {"hook": "test", "ok": False, "error": "x"})
    assert victim.read_text() == "precious\n"
    assert ingest_log.recent(clone) == []  # nor read through it
    done = cli("install", "--repo", str(clone), "--json", env=upstream.env())
    assert done.returncode == 1 and _error_code(done) == "store_unsafe", done.stdout
    assert victim.read_text() == "precious\n"


def test_a_store_dir_that_is_a_regular_file_is_a_clear_error(tmp_path: Path) -> None:
    upstream = _upstream(tmp_path, {".weft/warpline": "not a directory\n"})
    clone = _clone(upstream, tmp_path / "clone")
    done = _changed(upstream, clone)
    assert done.returncode == 1 and _error_code(done) == "store_unsafe", done.stdout


# -- S3: a store committed to git is not trusted ---------------------------------------------

def _reverify_summary(repo: Path, env: dict[str, str]) -> tuple[dict[str, int], list[str]]:
    done = cli("reverify", "HEAD~1..HEAD", "--repo", str(repo), "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    payload = json.loads(done.stdout)
    return payload["data"]["verification_summary"], payload["warnings"]


def test_a_committed_store_never_vouches_for_a_clone(tmp_path: Path) -> None:
    upstream = _upstream(tmp_path, {})
    upstream.commit({"app/core.py": "def alpha():\n    return 2\n"}, "two")
    env = upstream.env()
    done = cli("verify-record", "--commit", "HEAD", "--kind", "test_pass", "--actor", "ci",
               "--repo", str(upstream.path), "--json", env=env)
    assert done.returncode == 0, done.stdout
    assert _reverify_summary(upstream.path, env)[0]["fresh"] == 1  # true where it ran
    db = store_path(upstream.path)
    with sqlite3.connect(db) as conn:  # fold the WAL in, so the committed file holds it all
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    upstream.git("add", "-f", str(db))
    upstream.git("commit", "-q", "-m", "commit the store")
    clone = _clone(upstream, tmp_path / "clone")

    env = upstream.env()
    done = cli("reverify", "HEAD~2..HEAD~1", "--repo", str(clone), "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    payload = json.loads(done.stdout)
    assert payload["data"]["verification_summary"]["fresh"] == 0
    assert any(".weft/warpline/warpline.db" in w for w in payload["warnings"])
    committed = clone / ".weft" / "warpline" / "warpline.db"
    assert store_path(clone) != committed and store_path(clone).is_file()
    blob = subprocess.run(["git", "-C", str(clone), "status", "--porcelain"],
                          capture_output=True, text=True, check=True, timeout=60).stdout
    assert blob == ""  # the committed copy was neither read into nor written
