"""``warpline.exiting.exit_now``: how the console scripts end, in real child processes.

What a process must still do at exit is asserted, and so is what it skips (the
interpreter's teardown: a module-level object's ``__del__`` never runs), so an
``exit_now`` that quietly became ``sys.exit`` fails here too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.gitfixture import FixtureRepo

# A module-level object whose finalizer runs only in the interpreter's teardown.
_TEARDOWN_PROBE = ("import sys\n"
                   "class _Probe:\n"
                   "    def __del__(self):\n"
                   "        sys.stderr.write('TEARDOWN\\n')\n"
                   "probe = _Probe()\n")


def _child(code: str, cwd: Path | None = None,
           stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _TEARDOWN_PROBE + code], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def _ending_with_exit_now(code: str, exit_code: int) -> subprocess.CompletedProcess[str]:
    return _child(code + f"from warpline.exiting import exit_now\nexit_now({exit_code})\n")


def _entry_point(module: str, argv: list[str], cwd: Path,
                 stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m MODULE ARGV`` as the console script runs it, the probe loaded first."""
    return _child("import runpy\n"
                  f"sys.argv[1:] = {argv!r}\n"
                  f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n",
                  cwd=cwd, stdin=stdin)


def test_exit_now_keeps_the_code_runs_atexit_flushes_and_skips_teardown() -> None:
    done = _ending_with_exit_now("import atexit\n"
                                 "atexit.register(lambda: sys.stderr.write('ATEXIT\\n'))\n"
                                 "sys.stdout = open(1, 'w', buffering=65536, closefd=False)\n"
                                 "sys.stdout.write('unflushed answer')\n", 3)
    assert done.returncode == 3
    assert done.stdout == "unflushed answer"
    assert done.stderr.splitlines() == ["ATEXIT"]


def test_the_same_program_through_sys_exit_does_tear_down() -> None:
    """The probe itself works: a normal exit runs its finalizer."""
    done = _child("sys.exit(3)\n")
    assert done.returncode == 3
    assert "TEARDOWN" in done.stderr.splitlines()


def test_a_live_thread_is_waited_for_as_a_normal_exit_would() -> None:
    done = _ending_with_exit_now("import threading, time\n"
                                 "def late():\n"
                                 "    time.sleep(0.3)\n"
                                 "    sys.stdout.write('thread finished\\n')\n"
                                 "threading.Thread(target=late).start()\n", 4)
    assert done.returncode == 4
    assert done.stdout == "thread finished\n"
    assert "TEARDOWN" in done.stderr.splitlines()


def test_stdout_that_cannot_be_written_exits_120_as_python_does() -> None:
    done = _ending_with_exit_now("import os\n"
                                 "sys.stdout = open(1, 'w', buffering=65536, closefd=False)\n"
                                 "sys.stdout.write('lost')\n"
                                 "os.close(1)\n", 0)
    assert done.returncode == 120
    assert "TEARDOWN" not in done.stderr


def _repo(tmp_path: Path) -> Path:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pkg/mod.py": "def f():\n    return 1\n"})
    return repo.path


def test_python_m_warpline_cli_ends_through_exit_now(tmp_path: Path) -> None:
    """The real entry point on a real repository: answer, exit code, no teardown."""
    done = _entry_point("warpline.cli", ["backfill", "--repo", "."], _repo(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ingested 1 commits ")
    assert "TEARDOWN" not in done.stderr


def test_a_rejected_command_line_still_exits_1_with_its_envelope(tmp_path: Path) -> None:
    done = _entry_point("warpline.cli", ["ingest-commit", "--no-such-flag", "--json"],
                        _repo(tmp_path))
    assert done.returncode == 1
    assert json.loads(done.stdout)["error_code"] == "invalid_argument"
    assert "TEARDOWN" not in done.stderr


def test_python_m_warpline_mcp_answers_then_ends_through_exit_now(tmp_path: Path) -> None:
    """The MCP server over a real stdio pipe: the reply, then at EOF exit 0, no teardown."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "exit-test", "version": "1"}}}
    done = _entry_point("warpline.mcp", [], _repo(tmp_path), stdin=json.dumps(init) + "\n")
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [r["id"] for r in replies] == [1]
    assert "serverInfo" in replies[0]["result"]
    assert "TEARDOWN" not in done.stderr


def test_a_profiler_still_writes_its_results(tmp_path: Path) -> None:
    """``python -m cProfile -o F -m warpline.cli``: cProfile writes F after the program
    returns, so under a profiler (or a tracer) the process exits the usual way."""
    out = tmp_path / "cli.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m",
                           "warpline.cli", "backfill", "--repo", "."], capture_output=True,
                          text=True, timeout=120, cwd=_repo(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ingested 1 commits ")
    assert out.stat().st_size > 0
