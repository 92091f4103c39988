"""What a change means, where the readers lost it (issue 35, item 9): a version after one
``ast`` could not parse, re-parsed incrementally, and a signature read past a decorator
argument line that starts with ``def``."""

from __future__ import annotations

from pathlib import Path

from tests.gitfixture import FixtureRepo
from tests.langwalk import changes
from warpline.registry import call_tool

CLEAN = '''import os


def f(a, b):
    # add them
    return a + b


def g(x):
    return os.path.join(x, "y")
'''

BROKEN = CLEAN.replace('return os.path.join(x, "y")', 'print "x"\n    return x')


def test_a_version_after_an_unparsable_one_has_its_nature_again(tmp_path: Path) -> None:
    # v2 is py2-era (ast rejects it; the tolerant parser reads it); v3 fixes g; v4 edits
    # only f's comment. v3 and v4 are derived from the tolerant v2 by the incremental
    # re-parse, which used to keep the tolerant flag: every later event's nature null.
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"m.py": CLEAN}, "v1")
    repo.commit({"m.py": BROKEN}, "v2 broken")
    fixed = CLEAN.replace('"y")', '"z")')  # not v1's blob (its parse is cached)
    repo.commit({"m.py": fixed}, "v3 fixed")
    repo.commit({"m.py": fixed.replace("# add them", "# sum them")}, "v4 comment")
    timeline = call_tool("timeline", {"repo": str(repo.path), "entity": "python:function:m.f"})
    assert [(i["change_kind"], i["nature"]) for i in timeline["data"]["items"]] == [
        ("added", "behavioural"), ("modified", "cosmetic")]


def test_a_version_still_unparsable_after_the_edit_stays_unknown(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"m.py": BROKEN}, "v1 broken")
    sha = repo.commit({"m.py": BROKEN.replace("# add them", "# sum them")}, "v2 comment")
    found = {c.locator: c.facts for c in changes(repo, sha).changes
             if c.locator == "python:function:m.f"}
    assert found == {"python:function:m.f": None}


DECORATED = '''import click


@click.option(
    "--mode",
    default="fast",
    help="How to run.",
)
def run(mode):
    return mode
'''


def test_a_decorator_argument_line_starting_with_def_is_no_signature(tmp_path: Path) -> None:
    # The signature reader took the first line starting with "def": here
    # ``default="fast",``, so a change of the decorator's help text read as a signature
    # change (and a header of ``default=...`` lines does not parse: an unknown nature).
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"cli.py": DECORATED}, "one")
    sha = repo.commit({"cli.py": DECORATED.replace("How to run.", "How to run it.")}, "help")
    edited = {c.locator: (c.change_kind, c.facts) for c in changes(repo, sha).changes
              if not c.locator.startswith("core:")}
    assert edited == {"python:function:cli.run": ("modified", (False, False, False))}
    sha = repo.commit({"cli.py": DECORATED.replace("How to run it.", "How to run.").replace(
        "def run(mode):", "def run(mode, fast=True):")}, "signature")
    edited = {c.locator: (c.change_kind, c.facts) for c in changes(repo, sha).changes
              if not c.locator.startswith("core:")}
    assert edited == {"python:function:cli.run": ("modified", (False, False, True))}
