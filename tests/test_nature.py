"""What a change means (``nature``): Python fixture histories through the walker, the store
and the wire — comment-only, docstring (with and without doctests), re-wrap, signature,
rename plus reformatting; the cosmetic filter of ``changed`` and ``churn``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from tests.langwalk import changes
from warpline.registry import call_tool

BASE = '''"""A module."""
import os


class Shop:
    """A shop."""

    def total(self, prices, tax):
        """Sum with tax.

        >>> Shop().total([1, 2], 0)
        3
        """
        # add every price, then the tax
        amount = sum(prices)
        return amount + amount * tax

    def label(self, name):
        return ", ".join([name,
                          os.sep])


def rate(kind, base, extra, floor, ceiling, scale):
    value = base * scale + extra
    value = max(value, floor)
    value = min(value, ceiling)
    if kind == "net":
        value = value - extra
    return value
'''

TOTAL = "python:function:shop.Shop.total"
LABEL = "python:function:shop.Shop.label"
RATE = "python:function:shop.rate"


def _facts(repo: FixtureRepo, sha: str) -> dict[str, Any]:
    return {c.locator: (c.change_kind, c.facts) for c in changes(repo, sha).changes
            if not c.locator.startswith("core:")}


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"shop.py": BASE}, message="base")
    return r


def test_a_comment_only_edit_is_cosmetic(repo: FixtureRepo) -> None:
    sha = repo.commit({"shop.py": BASE.replace("# add every price", "# sum the prices")}, "c")
    assert _facts(repo, sha) == {TOTAL: ("modified", (True, False, False))}


def test_a_docstring_edit_is_read_as_docs_only(repo: FixtureRepo) -> None:
    sha = repo.commit({"shop.py": BASE.replace("Sum with tax.", "Sum, then tax.")}, "d")
    assert _facts(repo, sha) == {TOTAL: ("modified", (True, True, False))}


def test_a_whitespace_rewrap_is_cosmetic(repo: FixtureRepo) -> None:
    sha = repo.commit({"shop.py": BASE.replace("[name,\n                          os.sep]",
                                               "[name, os.sep]")}, "w")
    assert _facts(repo, sha) == {LABEL: ("modified", (True, False, False))}


def test_a_parameter_change_is_a_signature_change(repo: FixtureRepo) -> None:
    sha = repo.commit({"shop.py": BASE.replace("def label(self, name)",
                                               "def label(self, name, sep=os.sep)")}, "s")
    assert _facts(repo, sha) == {LABEL: ("modified", (False, False, True))}


def test_a_body_change_is_behavioural(repo: FixtureRepo) -> None:
    sha = repo.commit({"shop.py": BASE.replace("amount * tax", "amount * tax * 2")}, "b")
    assert _facts(repo, sha) == {TOTAL: ("modified", (False, False, False))}


def test_a_rename_plus_reformatting_is_a_signature_change(repo: FixtureRepo) -> None:
    renamed = BASE.replace("def rate(kind, base, extra, floor, ceiling, scale):",
                           "def price_rate(kind, base, extra,\n"
                           "               floor, ceiling, scale):").replace(
        "value = base * scale + extra", "value = (base * scale\n             + extra)")
    sha = repo.commit({"shop.py": renamed}, "r")
    found = _facts(repo, sha)
    assert found == {"python:function:shop.price_rate": ("moved", (True, False, True))}


def _changed(repo: FixtureRepo, **more: Any) -> dict[str, Any]:
    env = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD", **more})
    assert_valid_envelope(env)
    return env


def _natures(env: dict[str, Any]) -> dict[str, Any]:
    return {i["entity"]["locator"]: i["nature"] for i in env["data"]["items"]}


def test_changed_says_each_events_nature_and_can_leave_cosmetic_ones_out(
        repo: FixtureRepo) -> None:
    edited = BASE.replace("# add every price", "# sum the prices").replace(
        "def label(self, name)", "def label(self, name, sep=os.sep)").replace(
        "value = max(value, floor)", "value = max(value, floor, 0)")
    repo.commit({"shop.py": edited}, "mixed")
    assert _natures(_changed(repo)) == {TOTAL: "cosmetic", LABEL: "signature",
                                        RATE: "behavioural", "core:file:shop.py": None}
    env = _changed(repo, skip_cosmetic=True)
    assert _natures(env) == {LABEL: "signature", RATE: "behavioural", "core:file:shop.py": None}
    assert env["data"]["total"] == 3


def test_a_docstring_change_is_behavioural_where_the_project_runs_doctests(
        repo: FixtureRepo) -> None:
    repo.commit({"shop.py": BASE.replace("Sum with tax.", "Sum, then tax.")}, "docs")
    assert _natures(_changed(repo))[TOTAL] == "cosmetic"
    repo.write_worktree("pyproject.toml",
                        '[tool.pytest.ini_options]\naddopts = "-q --doctest-modules"\n')
    assert _natures(_changed(repo))[TOTAL] == "behavioural"


@pytest.mark.parametrize("name,text", [
    ("pytest.ini", "[pytest]\ndoctest_optionflags = ELLIPSIS\n"),
    ("setup.cfg", "[tool:pytest]\naddopts = --doctest-modules\n"),
    ("tests/conftest.py", "import doctest\n"),
])
def test_every_doctest_signal_is_read(repo: FixtureRepo, name: str, text: str) -> None:
    from warpline.service.shared.nature import runs_doctests

    assert not runs_doctests(repo.path)
    repo.write_worktree(name, text)
    assert runs_doctests(repo.path)


def test_a_broken_config_reads_as_no_doctests(repo: FixtureRepo) -> None:
    from warpline.service.shared.nature import runs_doctests

    repo.write_worktree("pyproject.toml", "[tool.pytest.ini_options\naddopts = 1\n")
    repo.write_worktree("tox.ini", "not an ini [file")
    assert not runs_doctests(repo.path)


def test_timeline_and_churn_read_the_nature(repo: FixtureRepo) -> None:
    repo.commit({"shop.py": BASE.replace("# add every price", "# sum the prices")}, "c")
    repo.commit({"shop.py": BASE.replace("amount * tax", "amount * tax * 2")}, "b")
    timeline = call_tool("timeline", {"repo": str(repo.path), "entity": TOTAL})
    assert_valid_envelope(timeline)
    assert [i["nature"] for i in timeline["data"]["items"]] == [
        "behavioural", "cosmetic", "behavioural"]
    counts = {}
    for skip in (False, True):
        churn = call_tool("churn", {"repo": str(repo.path), "entity_refs": [TOTAL],
                                    "skip_cosmetic": skip})
        assert_valid_envelope(churn)
        counts[skip] = churn["data"]["items"][0]["churn_count"]
    assert counts == {False: 3, True: 2}


def test_an_uncommitted_comment_edit_is_cosmetic(repo: FixtureRepo) -> None:
    repo.write_worktree("shop.py", BASE.replace("# add every price", "# sum the prices"))
    env = call_tool("changed", {"repo": str(repo.path), "include_worktree": True,
                                "rev_range": "HEAD..HEAD"})
    assert_valid_envelope(env)
    worktree = {i["entity"]["locator"]: i["nature"] for i in env["data"]["items"]
                if i["origin"] == "worktree"}
    assert worktree == {TOTAL: "cosmetic", "core:file:shop.py": None}
    skipped = call_tool("changed", {"repo": str(repo.path), "include_worktree": True,
                                    "rev_range": "HEAD..HEAD", "skip_cosmetic": True})
    assert [i["entity"]["locator"] for i in skipped["data"]["items"]] == ["core:file:shop.py"]


def test_a_black_reformat_folding_the_body_onto_the_header_is_cosmetic(
        tmp_path: Path) -> None:
    before = ("import abc\n\n\nclass Base:\n    @abc.abstractmethod\n"
              "    def get(self, url: str, name: str) -> str:\n        ...\n")
    after = ("import abc\n\n\nclass Base:\n    @abc.abstractmethod\n    def get(\n"
             "        self, url: str, name: str\n    ) -> str: ...\n")
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"base.py": before}, "one")
    sha = repo.commit({"base.py": after}, "black")
    assert _facts(repo, sha) == {"python:function:base.Base.get": ("modified",
                                                                   (True, False, False))}


def test_a_module_past_the_code_cap_is_unknown_not_judged(tmp_path: Path) -> None:
    # A generated table of ~300 KB at module level: judging it would lex both sides of
    # every edit; its nature is unknown (null facts), its functions still judged.
    table = "TABLE = [\n" + "".join(f"    ({i}, 'x{i}'),\n" for i in range(20000)) + "]\n"
    head = "def f():\n    return 1\n\n\n"
    r = FixtureRepo(tmp_path / "big")
    r.commit({"gen.py": head + table}, "one")
    sha = r.commit({"gen.py": head.replace("return 1", "return 1  # why") + table + "X = 1\n"},
                   "two")
    found = _facts(r, sha)
    assert found["python:module:gen"] == ("modified", None)
    assert found["python:function:gen.f"] == ("modified", (True, False, False))
