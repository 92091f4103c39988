"""``--worktree`` hashes a large changed file once per change (issue 29, item 8b): its blob
id is remembered against path, size, mtime, ctime, inode and mode beside the store, and
hashed again when any of them moves or while the change is too fresh to trust (git's racy
rule). A real repository, real files; ``pygit2.hashfile`` is wrapped by a counting spy (the
real function still runs), because the number of hashes is the behaviour under test."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from warpline.git import hashcache
from warpline.registry import call_tool

BIG = 3 * 1024 * 1024  # past hashcache.MIN_BYTES
LONG_AGO_NS = 1_000_000_000_000_000_000  # 2001: far outside the racy window


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"data/blob.bin": b"\x00" * BIG, "pkg/mod.py": "def f():\n    return 1\n"},
             "add")
    r.checkout("main")  # a real work tree with the committed files
    return r


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()
    real = pygit2.hashfile

    def spy(path: str) -> pygit2.Oid:
        counts[Path(path).name] += 1
        return real(path)

    monkeypatch.setattr(pygit2, "hashfile", spy)
    return counts


def _worktree(repo: FixtureRepo) -> dict[str, str]:
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD",
                                "include_worktree": True, "limit": 500})
    return {i["entity"]["path"]: i["change_kind"] for i in env["data"]["items"]
            if i["origin"] == "worktree" and i["entity"]["kind"] == "file"}


def _write(repo: FixtureRepo, data: bytes, mtime_ns: int = LONG_AGO_NS) -> None:
    path = repo.path / "data" / "blob.bin"
    path.write_bytes(data)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_a_large_changed_file_is_hashed_once_per_change(repo: FixtureRepo,
                                                        hashes: Counter[str]) -> None:
    _write(repo, b"\x01" * (BIG + 10))
    for _ in range(3):
        assert _worktree(repo) == {"data/blob.bin": "modified"}
    assert hashes["blob.bin"] == 1
    _write(repo, b"\x02" * (BIG + 10))  # same size, same mtime: the ctime moved
    assert _worktree(repo) == {"data/blob.bin": "modified"}
    assert hashes["blob.bin"] == 2
    _write(repo, b"\x00" * BIG)  # back to HEAD's content: no event, whatever was remembered
    assert _worktree(repo) == {}


def test_the_remembered_ids_outlive_the_process(repo: FixtureRepo,
                                                hashes: Counter[str]) -> None:
    _write(repo, b"\x01" * (BIG + 10))
    _worktree(repo)
    kept = repo.path / ".weft" / "warpline" / "worktree-hashes.json"
    entry = json.loads(kept.read_text(encoding="utf-8"))["data/blob.bin"]
    assert entry[1] == str(pygit2.hash(b"\x01" * (BIG + 10)))
    cache = hashcache.HashCache(kept)  # what the next process loads
    full = repo.path / "data" / "blob.bin"
    assert cache.blob_id(str(full), "data/blob.bin", os.lstat(full)) == pygit2.Oid(
        hex=entry[1])
    assert hashes["blob.bin"] == 1 and cache.hashed == 0


def test_a_change_too_fresh_to_trust_is_hashed_every_time(repo: FixtureRepo,
                                                          hashes: Counter[str]) -> None:
    path = repo.path / "data" / "blob.bin"
    path.write_bytes(b"\x01" * (BIG + 10))  # modified now: inside the racy window
    for _ in range(3):
        assert _worktree(repo) == {"data/blob.bin": "modified"}
    assert hashes["blob.bin"] == 3


def test_an_added_large_file_is_never_hashed(repo: FixtureRepo,
                                             hashes: Counter[str]) -> None:
    (repo.path / "data" / "new.bin").write_bytes(b"\x05" * BIG)
    assert _worktree(repo) == {"data/new.bin": "added"}
    assert hashes["new.bin"] == 0


def test_a_damaged_cache_file_only_costs_a_hash(repo: FixtureRepo,
                                                hashes: Counter[str]) -> None:
    _write(repo, b"\x01" * (BIG + 10))
    _worktree(repo)
    kept = repo.path / ".weft" / "warpline" / "worktree-hashes.json"
    for junk in (b"{not json", b"[]", json.dumps({"data/blob.bin": [1, 2]}).encode()):
        kept.write_bytes(junk)
        assert _worktree(repo) == {"data/blob.bin": "modified"}
    assert hashes["blob.bin"] == 4

