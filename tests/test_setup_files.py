"""What setup writes honours the umask (``warpline.setup._files.write_atomic``, and
``install`` end to end): nothing group- or world-readable under ``umask 077``.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.hookrepo import GitRepo
from warpline.setup._files import write_atomic
from warpline.store import guard
from warpline.store.db import store_path

SRC = "def alpha():\n    return 1\n"


def _upstream(tmp_path: Path, files: dict[str, str]) -> GitRepo:
    repo = GitRepo(tmp_path / "upstream", tmp_path / "home")
    repo.commit({"app/core.py": SRC, **files}, "one")
    return repo


def test_write_atomic_honours_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o077)
    try:
        write_atomic(tmp_path / "new.json", b"{}\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o600


def test_install_under_umask_077_writes_nothing_group_or_world_readable(tmp_path: Path) -> None:
    repo = _upstream(tmp_path, {})
    code = ("import os, sys; os.umask(0o077); from warpline.cli import main; "
            "sys.exit(main(['install', '--repo', sys.argv[1], '--json']))")
    done = subprocess.run([sys.executable, "-c", code, str(repo.path)], capture_output=True,
                          text=True, timeout=180, env=repo.env(), check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    written = [repo.path / ".mcp.json", guard.state_dir(repo.path) / "config.json",
               store_path(repo.path)]
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path

