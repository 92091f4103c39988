"""Plain-git repositories for tests where git itself must run the hooks.

Hooks run only for real ``git commit`` / ``git merge`` / ``git rebase``, so these tests
drive the ``git`` binary, with an isolated environment: ``HOME`` in the test's tmp dir and
no system config (a developer's global ``core.hooksPath`` must not leak in), a pinned
identity and pinned dates.

The hooks start ``warpline hook-ingest`` detached; ``wait_caught_up`` polls the store
(read-only) with a bounded wait, and ``reap_hook_processes`` waits for (and, past a
deadline, kills by pid) every background ingest that was started for a given directory,
so no test leaves a stray process behind.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pygit2

from warpline.store.db import store_path

WAIT_S = 60.0


class GitRepo:
    def __init__(self, path: Path, home: Path) -> None:
        self.path = path
        self.home = home
        self._tick = 0
        home.mkdir(parents=True, exist_ok=True)
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def env(self, **extra: str) -> dict[str, str]:
        self._tick += 1
        date = f"{1_750_000_000 + 60 * self._tick} +0000"
        return {**os.environ, "HOME": str(self.home), "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com",
                "GIT_COMMITTER_NAME": "Alice", "GIT_COMMITTER_EMAIL": "alice@example.com",
                "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "NO_COLOR": "1",
                **extra}

    def git(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(["git", *args], cwd=cwd or self.path, env=env or self.env(),
                              capture_output=True, text=True, timeout=120, check=False)
        if check:
            assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done

    def commit(self, files: dict[str, str], message: str, *, cwd: Path | None = None,
               env: dict[str, str] | None = None) -> str:
        where = cwd or self.path
        for name, text in files.items():
            target = where / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        self.git("add", *files, cwd=where, env=env)
        self.git("commit", "-q", "-m", message, cwd=where, env=env)
        return self.head(where)

    def head(self, where: Path | None = None) -> str:
        return self.git("rev-parse", "HEAD", cwd=where).stdout.strip()


SRC = "def alpha():\n    return 1\n"


def clone(upstream: GitRepo, where: Path) -> Path:
    """A real ``git clone`` of ``upstream`` at ``where``."""
    done = subprocess.run(["git", "clone", "-q", str(upstream.path), str(where)],
                          capture_output=True, text=True, timeout=120, env=upstream.env(),
                          check=False)
    assert done.returncode == 0, done.stderr
    return where


def upstream_with(tmp_path: Path, files: dict[str, str]) -> GitRepo:
    """An upstream repository of one commit: ``app/core.py`` and ``files``."""
    repo = GitRepo(tmp_path / "upstream", tmp_path / "home")
    repo.commit({"app/core.py": SRC, **files}, "one")
    return repo


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``warpline ARGS`` in a fresh process of this interpreter."""
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout,
                          env=env or {**os.environ, "NO_COLOR": "1"})


def cli_json(*args: str, **kwargs: Any) -> tuple[int, Any]:
    done = cli(*args, "--json", **kwargs)
    return done.returncode, json.loads(done.stdout)


def ingested(root: Path) -> set[str]:
    path = store_path(root)
    if not path.exists():
        return set()
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            return {str(row[0]) for row in conn.execute("SELECT sha FROM commits")}
    except sqlite3.Error:
        return set()


def reachable(root: Path) -> set[str]:
    repo = pygit2.Repository(str(root))
    return {str(c.id) for c in repo.walk(repo.head.target)}


def wait_caught_up(root: Path, timeout: float = WAIT_S) -> set[str]:
    """Every commit reachable from HEAD ingested and the hooks' background processes for
    ``root`` gone, within ``timeout``; returns the commits."""
    want = reachable(root)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if want <= ingested(root):
            # ... and the background ingests have finished (their log lines are written).
            while hook_processes(root) and time.monotonic() < deadline:
                time.sleep(0.05)
            return want
        time.sleep(0.1)
    missing = want - ingested(root)
    log = root / ".weft" / "warpline" / "ingest.log"
    raise AssertionError(f"{len(missing)} commits not ingested after {timeout}s; ingest.log: "
                         f"{log.read_text() if log.exists() else '(none)'}")


def hook_processes(under: Path) -> list[int]:
    """Pids of background ``hook-ingest`` processes whose ``--repo`` is under ``under``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"hook-ingest" in argv and any(a.startswith(str(under).encode()) for a in argv):
            pids.append(int(entry.name))
    return pids


def reap_hook_processes(under: Path, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while hook_processes(under) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in hook_processes(under):  # only ours, by pid
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
