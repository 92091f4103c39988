"""The loomweave edge source against the real loomweave (install + analyze on a fixture).

Needs the ``loomweave`` and ``loomweave-plugin-python`` packages, and ``node`` on PATH for
call edges (pyright). ``loomweave analyze`` takes ~1.5 s on this fixture.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.gitfixture import FileValue, FixtureRepo
from warpline.graph.loomweave_source import (
    capture_from_loomweave,
    loomweave_available,
    loomweave_version,
    resolve_locators,
    resolve_seis,
)
from warpline.graph.model import EdgeCapture

pytestmark = [
    pytest.mark.loomweave,
    pytest.mark.skipif(shutil.which("loomweave") is None, reason="loomweave is not installed"),
]

F = "python:function:"
C = "python:class:"
M = "python:module:"

FILES: dict[str, FileValue] = {
    "demo/__init__.py": "",
    "demo/util.py": (
        "def ping(n):\n    return pong(n - 1) if n else 0\n\n\n"
        "def pong(n):\n    return ping(n)\n\n\n"
        "def audited(func):\n    return func\n"
    ),
    "demo/store.py": (
        "class Store:\n    def save(self, obj):\n        self._write(obj)\n\n"
        "    def _write(self, obj):\n        return obj\n"
    ),
    "demo/auth.py": (
        "from demo.store import Store\nfrom demo.util import audited, ping\n\n\n"
        "class Base:\n    def check(self, name):\n        return ping(len(name))\n\n\n"
        "class User(Base):\n    def greet(self):\n        return self.check('x')\n\n\n"
        "@audited\ndef login(name):\n    Store().save(name)\n    return User().greet()\n\n\n"
        "def old_name():\n    return login('x')\n\n\n"
        "HANDLERS = [login]\n"
    ),
    "tests/test_auth.py": (
        "from demo.auth import login\n\n\ndef test_login():\n    assert login('bob')\n"
    ),
}

EXPECTED_EDGES = {
    (F + "tests.test_auth.test_login", F + "demo.auth.login", "calls"),
    (F + "demo.auth.login", F + "demo.store.Store.save", "calls"),
    (F + "demo.auth.login", F + "demo.auth.User.greet", "calls"),
    (F + "demo.auth.User.greet", F + "demo.auth.Base.check", "calls"),
    (F + "demo.auth.Base.check", F + "demo.util.ping", "calls"),
    (F + "demo.util.ping", F + "demo.util.pong", "calls"),
    (F + "demo.util.pong", F + "demo.util.ping", "calls"),
    (F + "demo.auth.old_name", F + "demo.auth.login", "calls"),
    (M + "demo.auth", F + "demo.auth.login", "references"),
    # folded loomweave relations: inherits_from and (reversed) decorates
    (C + "demo.auth.User", C + "demo.auth.Base", "references"),
    (F + "demo.auth.login", F + "demo.util.audited", "references"),
}


def _loomweave(args: list[str], cwd: Path, home: Path) -> str:
    env = dict(os.environ)
    # `loomweave install` also writes ~/.codex/config.toml: keep it inside tmp. A pinned
    # interpreter makes pyright's import resolution (and the coverage claim) complete.
    env["HOME"] = str(home)
    env["LOOMWEAVE_PYTHON_INTERPRETER"] = sys.executable
    completed = subprocess.run(
        ["loomweave", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return completed.stdout


def _edges(capture: EdgeCapture) -> set[tuple[str, str, str]]:
    return {(e.source_locator, e.target_locator, e.kind) for e in capture.edges}


@pytest.fixture(scope="module")
def analyzed(tmp_path_factory: pytest.TempPathFactory) -> tuple[FixtureRepo, Path, float]:
    root = tmp_path_factory.mktemp("loomweave")
    repo = FixtureRepo(root / "repo")
    repo.commit(FILES, "init")
    home = root / "home"
    home.mkdir()
    _loomweave(["install", "--path", "."], repo.path, home)
    started = time.perf_counter()
    _loomweave(["analyze"], repo.path, home)
    return repo, home, time.perf_counter() - started


def test_capture_includes_real_caller_to_callee_edges(
    analyzed: tuple[FixtureRepo, Path, float],
) -> None:
    repo, _, seconds = analyzed
    capture = capture_from_loomweave(repo.path)
    missing = EXPECTED_EDGES - _edges(capture)
    degraded = dict(capture.degraded_files)
    assert not missing, f"missing {missing}; degraded files: {degraded} (is node on PATH?)"
    assert capture.source == "loomweave"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", capture.source_version)
    assert capture.failed_entities == ()
    print(f"loomweave analyze took {seconds:.2f}s")


def test_every_captured_entity_is_live_with_an_opaque_sei(
    analyzed: tuple[FixtureRepo, Path, float],
) -> None:
    repo, _, _ = analyzed
    capture = capture_from_loomweave(repo.path)
    entities = {e.locator: e for e in capture.entities}
    assert all(e.sei is not None and e.sei.startswith("loomweave:eid:") for e in entities.values())
    assert entities[F + "demo.auth.login"].path == "demo/auth.py"
    assert entities["core:file:tests/test_auth.py"].kind == "file"
    assert not any(loc.startswith("core:subsystem:") for loc in entities)
    assert resolve_seis(repo.path, [F + "demo.auth.login", F + "nowhere.f"]) == {
        F + "demo.auth.login": entities[F + "demo.auth.login"].sei
    }
    sei = entities[C + "demo.auth.User"].sei
    assert sei is not None
    assert resolve_locators(repo.path, [sei]) == {sei: C + "demo.auth.User"}


def test_rows_for_code_that_no_longer_exists_are_ignored(
    analyzed: tuple[FixtureRepo, Path, float],
) -> None:
    repo, home, _ = analyzed
    before = capture_from_loomweave(repo.path)
    old_sei = {e.locator: e.sei for e in before.entities}[F + "demo.auth.old_name"]
    auth = FILES["demo/auth.py"]
    assert isinstance(auth, str)
    repo.commit({"demo/auth.py": auth.replace("old_name", "new_name")}, "rename")
    _loomweave(["analyze"], repo.path, home)
    after = capture_from_loomweave(repo.path)
    locators = {e.locator for e in after.entities}
    assert F + "demo.auth.new_name" in locators
    assert F + "demo.auth.old_name" not in locators  # loomweave keeps the row, orphaned
    assert not any("old_name" in s or "old_name" in t for s, t, _ in _edges(after))
    # The old SEI is orphaned (or, if loomweave ever carries it across the rename, it
    # names the new locator): never the dead one.
    assert old_sei is not None
    assert resolve_locators(repo.path, [old_sei]).get(old_sei) != F + "demo.auth.old_name"


def test_availability_needs_both_the_index_and_the_executable(
    analyzed: tuple[FixtureRepo, Path, float], tmp_path: Path
) -> None:
    repo, _, _ = analyzed
    assert loomweave_available(repo.path)
    assert not loomweave_available(repo.path, command="no-such-loomweave-binary")
    assert not loomweave_available(tmp_path)
    assert resolve_seis(tmp_path, [F + "x.y"]) == {}
    version = loomweave_version()
    assert version is not None and re.fullmatch(r"\d+\.\d+\.\d+\S*", version)
    assert loomweave_version("no-such-loomweave-binary") is None
