"""What ``warpline ci`` writes in a checkout it never writes through a link (issue 38 item
3), and what the job's environment hands it cannot hang or crash it (item 7): a pull request
that commits ``warpline-reverify.md -> ../outside/x`` (or the ``reverify.md``/``tests.txt``
the GitLab example writes, or a directory link on the way) gets ``store_unsafe`` naming the
option, and nothing is written outside; an unwritable step summary is a warning; a FIFO or a
5,000-deep ``GITHUB_EVENT_PATH`` is no event, not a hang or ``internal_error``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.test_ci_command import _ci, _git, _github_env, _gitlab_env, forge

__all__ = ["forge"]


def _commit_links(forge: dict[str, Any], links: dict[str, str]) -> Path:
    """The pull request commits ``links`` (name -> target); the CI checkout fetches it."""
    dev = forge["dev"]
    for name, target in links.items():
        (dev / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, dev / name)
    _git(dev, "add", *links)
    _git(dev, "commit", "-qm", "commit links")
    _git(dev, "push", "-q", "origin", "feature")
    ci = Path(forge["ci"])
    _git(ci, "pull", "-q", "--ff-only")
    forge["head"] = _git(dev, "rev-parse", "HEAD")
    return ci


def _error(done: Any) -> dict[str, Any]:
    assert done.returncode == 1, (done.returncode, done.stderr)
    return dict(json.loads(done.stdout))


@pytest.mark.parametrize("existing", [False, True])
def test_a_committed_report_link_is_refused_and_nothing_is_written_outside(
        forge: dict[str, Any], existing: bool) -> None:
    outside = forge["tmp"] / "outside"
    outside.mkdir()
    if existing:
        (outside / "x").write_text("precious\n")
    ci = _commit_links(forge, {"warpline-reverify.md": "../outside/x"})
    error = _error(_ci(ci, _github_env(forge), "--json"))
    assert (error["error_code"], error["rejected_field"]) == ("store_unsafe", "markdown")
    assert [p.name for p in outside.iterdir()] == (["x"] if existing else [])
    if existing:
        assert (outside / "x").read_text() == "precious\n"


def test_the_gitlab_examples_files_through_committed_links_are_refused(
        forge: dict[str, Any]) -> None:
    outside = forge["tmp"] / "outside"
    outside.mkdir()
    ci = _commit_links(forge, {"tests.txt": "../outside/tests", "out": "../outside"})
    env = _gitlab_env(forge)
    error = _error(_ci(ci, env, "--markdown", "reverify.md", "--selection", "tests.txt",
                       "--json"))
    assert (error["error_code"], error["rejected_field"]) == ("store_unsafe", "selection")
    error = _error(_ci(ci, env, "--markdown", "out/reverify.md", "--json"))
    assert (error["error_code"], error["rejected_field"]) == ("store_unsafe", "markdown")
    assert list(outside.iterdir()) == []
    # The same options naming real files in the checkout are written as before.
    done = _ci(ci, env, "--markdown", "reverify.md", "--selection", "sel.txt", "--json")
    assert done.returncode == 0, done.stderr
    assert (ci / "reverify.md").read_text().startswith("## warpline")


def test_an_unwritable_step_summary_is_a_warning_not_a_crash(forge: dict[str, Any]) -> None:
    summary = forge["tmp"] / "summary-is-a-directory"
    summary.mkdir()
    out = forge["tmp"] / "reverify.md"
    done = _ci(forge["ci"], _github_env(forge, GITHUB_STEP_SUMMARY=str(summary)),
               "--markdown", str(out), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["step_summary"] is None
    assert any("GITHUB_STEP_SUMMARY" in w for w in report["warnings"])
    assert out.read_text().startswith("## warpline")


def test_a_fifo_or_a_deeply_nested_event_file_is_no_event(forge: dict[str, Any]) -> None:
    fifo = forge["tmp"] / "event.fifo"
    os.mkfifo(fifo)
    deep = forge["tmp"] / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    nested = forge["tmp"] / "nested.json"
    nested.write_text('{"pull_request": ' + '{"a": ' * 5000 + "1" + "}" * 5001)
    for event in (fifo, deep, nested):
        done = _ci(forge["ci"], _github_env(forge, GITHUB_EVENT_PATH=str(event)),
                   "--markdown", str(forge["tmp"] / "r.md"), "--json")
        assert done.returncode == 0, (event.name, done.stderr)
        assert json.loads(done.stdout)["ci"]["base_sha"] == forge["base"]
