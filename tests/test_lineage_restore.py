"""A definition restored under its old name after it was moved away and the move's target
was removed (issue 35, item 8): its history goes on."""

from __future__ import annotations

from pathlib import Path

from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool

F = '''def normalise(value):
    value = value.strip()
    value = value.lower()
    return value.replace(" ", "_")
'''


def _moved_away(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"a.py": "X = 1\n\n\n" + F, "b.py": "Y = 1\n"}, "add")
    repo.commit({"a.py": "X = 1\n", "b.py": "Y = 1\n\n\n" + F}, "move to b")
    return repo


def test_a_definition_restored_after_a_move_away_continues_its_history(
        tmp_path: Path) -> None:
    repo = _moved_away(tmp_path)
    repo.commit({"b.py": "Y = 1\n"}, "drop it")
    restored = F.replace('" ", "_"', '" ", "-"')
    repo.commit({"a.py": "X = 1\n\n\n" + restored}, "restore in a")
    timeline = call_tool("timeline", {"repo": str(repo.path),
                                      "entity": "python:function:a.normalise"})
    assert [(i["change_kind"], i["locator"]) for i in timeline["data"]["items"]] == [
        ("added", "python:function:a.normalise"), ("moved", "python:function:b.normalise"),
        ("removed", "python:function:b.normalise"), ("added", "python:function:a.normalise")]
    churn = call_tool("churn", {"repo": str(repo.path),
                                "entity_refs": ["python:function:a.normalise"]})
    assert churn["data"]["items"][0]["churn_count"] == 4


def test_a_name_reused_while_its_carrier_lives_still_starts_its_own_history(
        tmp_path: Path) -> None:
    repo = _moved_away(tmp_path)
    repo.commit({"a.py": "X = 1\n\n\ndef normalise(v):\n    return v\n"}, "new one")
    timeline = call_tool("timeline", {"repo": str(repo.path),
                                      "entity": "python:function:a.normalise"})
    assert [i["change_kind"] for i in timeline["data"]["items"]] == ["added"]
