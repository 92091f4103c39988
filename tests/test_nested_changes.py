"""A function's nested definitions' changes, seen from the function (issue 35, item 10):
its timeline lists them marked ``nested`` and says so; churn counts them apart; own
lines stay the attribution rule."""

from __future__ import annotations

from pathlib import Path

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool

OUTER = '''\
def outer(items):
    def key(item):
        return item.name

    return sorted(items, key=key)


def other():
    return 1
'''

PARENT = "python:function:m.outer"
CHILD = "python:function:m.outer.<locals>.key"


def _history(root: Path) -> FixtureRepo:
    repo = FixtureRepo(root)
    repo.commit({"m.py": OUTER}, "add")
    repo.commit({"m.py": OUTER.replace("item.name", "item.name.lower()")}, "fix the key")
    repo.commit({"m.py": OUTER.replace("item.name", "item.name.lower()").replace(
        "return 1", "return 2")}, "other")
    return repo


def test_the_timeline_of_a_function_lists_its_nested_changes_marked(tmp_path: Path) -> None:
    repo = _history(tmp_path / "repo")
    timeline = call_tool("timeline", {"repo": str(repo.path), "entity": PARENT})
    assert_valid_envelope(timeline)
    items = [(i["change_kind"], i["locator"], i["nested"]) for i in timeline["data"]["items"]]
    assert items == [("added", PARENT, False), ("added", CHILD, True),
                     ("modified", CHILD, True)]
    assert timeline["data"]["total"] == 3
    assert any("nested" in w for w in timeline["warnings"])
    # The nested function's own timeline is its own, unmarked.
    child = call_tool("timeline", {"repo": str(repo.path), "entity": CHILD})
    assert [(i["change_kind"], i["nested"]) for i in child["data"]["items"]] == [
        ("added", False), ("modified", False)]


def test_churn_counts_nested_changes_apart(tmp_path: Path) -> None:
    repo = _history(tmp_path / "repo")
    churn = call_tool("churn", {"repo": str(repo.path),
                                "entity_refs": [PARENT, "python:function:m.other"]})
    assert_valid_envelope(churn)
    got = {i["entity"]["locator"]: (i["churn_count"], i["nested_churn_count"])
           for i in churn["data"]["items"]}
    assert got == {PARENT: (1, 2), "python:function:m.other": (2, 0)}
    assert any("nested_churn_count" in w for w in churn["warnings"])
