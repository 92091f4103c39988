"""Progress on stderr (``warpline.cli.progress``): count, rate and ETA; a bounded redraw
rate on a terminal; plain lines every few seconds elsewhere; nothing on stdout."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.gitfixture import FixtureRepo
from warpline.cli.progress import ProgressLine, format_duration, progress_line


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _drive(line: ProgressLine, clock: FakeClock, total: int, step_s: float) -> None:
    for done in range(1, total + 1):
        clock.now += step_s
        line(done, total)


def test_a_terminal_is_redrawn_at_most_ten_times_a_second_with_count_rate_and_eta() -> None:
    clock, stream = FakeClock(), io.StringIO()
    line = ProgressLine("backfill", stream, tty=True, plain_interval_s=5.0, clock=clock)
    # 10,000 commits reported one by one over 20 simulated seconds (500 commits/s).
    _drive(line, clock, 10_000, 0.002)
    redraws = stream.getvalue().count("\r")
    assert redraws == line.writes
    assert redraws <= 20 * 10 + 2
    assert redraws >= 20 * 10 * 0.9  # still live: about ten a second
    frames = stream.getvalue().split("\r")[1:]
    middle = frames[len(frames) // 2]
    assert "/10,000 commits" in middle and "500 commits/s" in middle and "ETA " in middle
    assert middle.startswith("backfill [")
    assert frames[-1].startswith("backfill [####################] 10,000/10,000 commits (100%)")
    assert frames[-1].endswith("\n") and "ETA" not in frames[-1]


def test_off_a_terminal_a_plain_line_every_interval_and_the_final_one() -> None:
    clock, stream = FakeClock(), io.StringIO()
    line = ProgressLine("backfill", stream, tty=False, plain_interval_s=5.0, clock=clock)
    _drive(line, clock, 6_000, 0.01)  # 60 simulated seconds, 100 commits/s
    text = stream.getvalue()
    assert "\r" not in text and "[" not in text  # a log line, not a bar
    lines = text.splitlines()
    assert 11 <= len(lines) <= 13  # one every 5 s, then the final state
    first = lines[0]
    assert first.startswith("backfill 50") and "/6,000 commits" in first
    assert "100 commits/s" in first and "ETA 55s" in first
    assert lines[-1].startswith("backfill 6,000/6,000 commits (100%) 100 commits/s in 1m00s")


def test_a_run_shorter_than_the_interval_writes_nothing_off_a_terminal() -> None:
    clock, stream = FakeClock(), io.StringIO()
    line = ProgressLine("backfill", stream, tty=False, plain_interval_s=5.0, clock=clock)
    _drive(line, clock, 30, 0.01)
    assert stream.getvalue() == ""


def test_the_rate_counts_from_the_first_report_not_from_zero() -> None:
    # A resumed run reports its first commit as 1 of the rest; the pending walk before
    # the first report is not ingest time either.
    text = progress_line("backfill", 1_200, 16_238, 3.0, counted=1_200)
    assert text == "backfill 1,200/16,238 commits (7%) 400 commits/s ETA 38s"
    assert progress_line("backfill", 5, 10, 0.1) == "backfill 5/10 commits (50%)"
    assert "2.0 commits/s" in progress_line("x", 6, 10, 3.0)


def test_durations_read_at_a_glance() -> None:
    assert [format_duration(s) for s in (0.4, 42, 185, 3720, -3)] == \
        ["0s", "42s", "3m05s", "1h02m", "0s"]


def test_a_cli_backfill_off_a_terminal_writes_plain_progress_lines_to_stderr(
        tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    for index in range(25):
        repo.commit({f"pkg/mod{index % 5}.py": f"def f{index}():\n    return {index}\n"},
                    f"commit {index}")
    env = {**os.environ, "WARPLINE_PROGRESS_INTERVAL_S": "0", "WARPLINE_INGEST_WORKERS": "0"}
    done = subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                           str(repo.path), "--json"], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["commits_ingested"] == 25  # stdout stays the answer
    lines = [x for x in done.stderr.splitlines() if x.startswith("backfill ")]
    assert "\r" not in done.stderr
    assert len(lines) >= 20
    assert lines[-1].startswith("backfill 25/25 commits (100%)")
    counts = [int(x.split()[1].split("/")[0]) for x in lines]
    assert counts == sorted(counts)


def test_no_eta_until_the_rate_is_measured_over_enough_of_the_run() -> None:
    """Issue 34: the first frame of a 6,489-commit backfill said "ETA 1h53m" for a run of
    1 min 38 s: a rate from a few early commits is no forecast."""
    first = progress_line("backfill", 3, 6_489, 0.5, counted=2)
    assert "ETA" not in first
    early = progress_line("backfill", 40, 6_489, 2.0, counted=39)
    assert "commits/s" in early and "ETA" not in early  # the rate is shown, no forecast
    later = progress_line("backfill", 700, 6_489, 4.0, counted=699)
    assert "ETA 33s" in later
