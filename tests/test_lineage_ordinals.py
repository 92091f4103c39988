"""History follows the definition, not its ordinal (issue 35): a same-named definition
inserted before another renames the later one (``helper`` -> ``helper~2``,
docs/languages.md); lineage pairs the old and new definitions of one base name by text,
so the moved one keeps its history and the inserted one is ``added``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool

M = "ts:function:test/a."


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


HELPER_A = """\
  function helper(req, res) {
    res.setHeader('x-a', req.url);
    res.statusCode = 201;
    res.end(JSON.stringify({ url: req.url, ok: true }));
  }
"""
HELPER_B = """\
  function helper(server) {
    return new Promise((resolve) => server.close(resolve));
  }
"""
HELPER_C = """\
  function helper(list) {
    const out = [];
    for (const item of list) out.push(item * 2);
    return out.filter(Boolean);
  }
"""


def _file(*helpers: str) -> str:
    blocks = [f"describe('s{i}', function () {{\n{h}  it('x', () => helper());\n}});\n"
              for i, h in enumerate(helpers)]
    return "'use strict';\n" + "".join(blocks)


def test_a_helper_inserted_before_a_namesake_leaves_the_old_ones_history_with_it(
        repo: FixtureRepo) -> None:
    repo.commit({"test/a.js": _file(HELPER_A)})
    sha = repo.commit({"test/a.js": _file(HELPER_B, HELPER_A)})
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found[M + "helper~2"] == ("moved", "function", M + "helper")
    assert found[M + "helper"][0] == "added"


def test_a_near_copy_inserted_before_its_model_leaves_the_model_its_history(
        repo: FixtureRepo) -> None:
    # Copy, paste and edit above: the new helper is alike the old one, the old one's
    # text is unchanged under helper~2.
    repo.commit({"test/a.js": _file(HELPER_A)})
    copy = HELPER_A.replace("201", "404").replace("'x-a'", "'x-b'")
    sha = repo.commit({"test/a.js": _file(copy, HELPER_A)})
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found[M + "helper~2"] == ("moved", "function", M + "helper")
    assert found[M + "helper"][0] == "added"


def test_a_shift_of_two_ordinals_moves_each_along_the_chain(repo: FixtureRepo) -> None:
    repo.commit({"test/a.js": _file(HELPER_A, HELPER_C)})
    sha = repo.commit({"test/a.js": _file(HELPER_B, HELPER_A, HELPER_C)})
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found[M + "helper~3"] == ("moved", "function", M + "helper~2")
    assert found[M + "helper~2"] == ("moved", "function", M + "helper")
    assert found[M + "helper"][0] == "added"


def test_a_helper_appended_after_its_namesake_leaves_it_alone(repo: FixtureRepo) -> None:
    repo.commit({"test/a.js": _file(HELPER_A)})
    sha = repo.commit({"test/a.js": _file(HELPER_A.replace("201", "202"), HELPER_B)})
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found[M + "helper"][0] == "modified"
    assert found[M + "helper~2"][0] == "added"


def test_an_edit_in_place_beside_a_namesake_is_an_edit(repo: FixtureRepo) -> None:
    repo.commit({"test/a.js": _file(HELPER_A, HELPER_C)})
    sha = repo.commit({"test/a.js": _file(HELPER_A.replace("201", "202"),
                                          HELPER_C.replace("* 2", "* 3"))})
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found[M + "helper"][0] == "modified"
    assert found[M + "helper~2"][0] == "modified"


def test_churn_counts_each_helper_by_its_own_history_across_two_shifts(
        repo: FixtureRepo) -> None:
    repo.commit({"test/a.js": _file(HELPER_A)})
    repo.commit({"test/a.js": _file(HELPER_A.replace("201", "202"))})
    repo.commit({"test/a.js": _file(HELPER_C, HELPER_A.replace("201", "202"))})
    repo.commit({"test/a.js": _file(HELPER_B, HELPER_C, HELPER_A.replace("201", "202"))})
    env = call_tool("churn", {"repo": str(repo.path), "entity_refs": [
        M + "helper", M + "helper~2", M + "helper~3"]})
    counts = {i["entity"]["locator"]: i["churn_count"] for i in env["data"]["items"]}
    # A: added, modified, shifted twice; C: added, shifted once; B: added
    assert counts == {M + "helper~3": 4, M + "helper~2": 2, M + "helper": 1}
