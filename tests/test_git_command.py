"""Every git process warpline starts runs nothing the repository's configuration names
(``warpline.git.command``): an fsmonitor, hooks, a pager, an external diff, a textconv
filter, the ``ext::`` transport. Real clones of a bare remote, real ``git`` config set the
way a tampered clone would have it, and marker files that any of those programs would
create."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo, run_git
from warpline.git import command as gitcmd

SRC = "def alpha():\n    return 1\n"
HOOKS = ("pre-push", "reference-transaction", "post-checkout", "post-merge", "post-rewrite",
         "pre-commit", "post-commit", "pre-auto-gc", "fsmonitor-watchman", "post-index-change")


def _marker_program(where: Path, name: str, marker: Path) -> Path:
    path = where / name
    path.write_text(f"#!/bin/sh\necho {name} >> {marker}\nexit 0\n")
    path.chmod(0o755)
    return path


def _tamper(clone: Path, tmp_path: Path, marker: Path) -> None:
    """Config and committed attributes that make a plain ``git`` run our marker programs."""
    bin_dir = tmp_path / "evil-bin"
    hooks = tmp_path / "evil-hooks"
    bin_dir.mkdir()
    hooks.mkdir()
    for hook in HOOKS:
        _marker_program(hooks, hook, marker)
    tricks = {
        "core.fsmonitor": str(_marker_program(bin_dir, "fsmonitor", marker)),
        "core.hooksPath": str(hooks),
        "core.pager": str(_marker_program(bin_dir, "pager", marker)),
        "pager.log": str(_marker_program(bin_dir, "pager-log", marker)),
        "diff.external": str(_marker_program(bin_dir, "extdiff", marker)),
        "diff.evil.textconv": str(_marker_program(bin_dir, "textconv", marker)),
        "core.editor": str(_marker_program(bin_dir, "editor", marker)),
    }
    for key, value in tricks.items():
        run_git(clone, "config", key, value)
    (clone / ".git" / "info").mkdir(exist_ok=True)
    (clone / ".git" / "info" / "attributes").write_text("* diff=evil\n")


@pytest.fixture()
def tampered(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(bare remote, a tampered clone with a verification record, the marker file)."""
    origin = FixtureRepo(tmp_path / "origin")
    origin.commit({"app/core.py": SRC}, message="one")
    origin.commit({"app/core.py": SRC.replace("1", "2")}, message="two")
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(origin.path), str(remote))
    # Another machine's record waits on the remote, so a sync fetches and merges notes.
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(remote), str(other))
    assert _cli(other, "verify-record", "--commit", "HEAD", "--kind", "lint_pass",
                "--actor", "other").returncode == 0
    assert _cli(other, "sync").returncode == 0
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(remote), str(clone))
    run_git(clone, "config", "user.name", "CI")
    run_git(clone, "config", "user.email", "ci@example.com")
    marker = tmp_path / "MARKER"
    # The tricks really work on plain git: proof that the test can fail.
    _tamper(clone, tmp_path, marker)
    subprocess.run(["git", "-C", str(clone), "status"], capture_output=True, check=False)
    assert marker.exists(), "the tampered config should run the fsmonitor under plain git"
    marker.unlink()
    return remote, clone, marker


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1", "GIT_TERMINAL_PROMPT": "0"},
                          stdin=subprocess.DEVNULL)


def test_sync_runs_nothing_the_clones_config_names(tampered: tuple[Path, Path, Path]) -> None:
    remote, clone, marker = tampered
    recorded = _cli(clone, "verify-record", "--commit", "HEAD", "--kind", "test_pass",
                    "--actor", "ci", "--json")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    done = _cli(clone, "sync", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["fetched"] is True and report["pushed"] is True
    assert run_git(remote, "for-each-ref", "refs/notes/").strip()
    assert not marker.exists(), marker.read_text()


def test_the_commands_that_start_git_run_nothing_the_clones_config_names(
        tampered: tuple[Path, Path, Path]) -> None:
    _, clone, marker = tampered
    for args in (["install", "--no-backfill", "--ignore"], ["changed", "HEAD~1..HEAD"],
                 ["changed", "--worktree", "HEAD"], ["ci", "--base", "HEAD~1"],
                 ["status"]):
        done = _cli(clone, *args, "--json")
        assert done.returncode in (0, 1), (args, done.stdout + done.stderr)
        assert not marker.exists(), (args, marker.read_text())


def test_the_runner_turns_off_each_trick_on_the_command_line(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/core.py": SRC}, message="one")
    repo.commit({"app/core.py": SRC.replace("1", "2")}, message="two")
    marker = tmp_path / "MARKER"
    _tamper(repo.path, tmp_path, marker)
    for args in (["status"], ["log", "-p", "-1"], ["diff", "HEAD~1"], ["show", "HEAD"],
                 ["commit", "--allow-empty", "-q", "-m", "three"]):
        done = gitcmd.run(repo.path, args, timeout=60)
        assert done.returncode == 0, (args, done.stderr)
        assert not marker.exists(), (args, marker.read_text())


class _Unauthorized(BaseHTTPRequestHandler):
    """Every request needs credentials: git asks its credential helpers."""

    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_transport_programs_the_config_names_never_run_during_sync_or_ci(
        tampered: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """``remote.*.uploadpack``/``receivepack``, ``core.alternateRefsCommand``,
    ``core.sshCommand``, ``core.gitProxy`` and ``credential.helper`` in the clone's config
    (issue 38 item 7). Remotes on loopback only: a bare path, ``ssh://`` and ``git://`` to
    a closed port, and an HTTP server answering 401."""
    remote, clone, marker = tampered
    evil = str(_marker_program(tmp_path / "evil-bin", "transport", marker))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unauthorized)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for key, value in (("remote.origin.uploadpack", evil),
                           ("remote.origin.receivepack", evil),
                           ("core.alternateRefsCommand", evil), ("core.sshCommand", evil),
                           ("core.gitProxy", evil), ("credential.helper", evil),
                           ("credential.http://127.0.0.1.helper", evil)):
            run_git(clone, "config", key, value)
        (clone / ".git" / "objects" / "info" / "alternates").write_text(
            f"{remote / 'objects'}\n")
        port = server.server_address[1]
        remotes = {"sshy": "ssh://127.0.0.1:1/x.git", "gitp": "git://127.0.0.1:1/x.git",
                   "web": f"http://127.0.0.1:{port}/x.git"}
        for name, url in remotes.items():
            run_git(clone, "remote", "add", name, url)
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
        # Proof that each trick fires under plain git.
        for args in (["fetch", "origin"], ["push", "origin", "HEAD:refs/heads/x"],
                     ["fetch", "--upload-pack=git-upload-pack", "origin"],
                     *(["ls-remote", name] for name in remotes)):
            subprocess.run(["git", "-C", str(clone), *args], capture_output=True, env=env,
                           timeout=60, check=False)
            assert marker.exists(), args
            marker.unlink()
        for args in (["sync", "--json"], *(["sync", name, "--json"] for name in remotes),
                     ["ci", "--base", "HEAD~1", "--json"],
                     ["ci", "--base", "HEAD~1", "--remote", "web", "--json"]):
            done = _cli(clone, *args)
            assert done.returncode in (0, 1), (args, done.stdout + done.stderr)
            if done.returncode == 1:
                assert json.loads(done.stdout)["error_code"] == "peer_unavailable", args
            assert not marker.exists(), (args, marker.read_text())
    finally:
        server.shutdown()
