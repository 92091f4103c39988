"""``timeline`` and ``churn``: history per entity, counts per ref, always in band."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.errors import WarplineError
from warpline.registry import call_tool
from warpline.store.db import Store

V1 = "def login(user):\n    return user\n\n\ndef logout(user):\n    return None\n"


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"src/demo/auth.py": V1}, message="add auth")
    r.commit({"src/demo/auth.py": V1.replace("return user", "return user.strip()")},
             message="edit login")
    r.commit({}, renames={"src/demo/auth.py": "src/demo/session.py"}, message="rename")
    r.commit({"src/demo/session.py": V1.replace("return user", "return user.lower()")},
             message="edit login again")
    return r


def _timeline(**arguments: Any) -> dict[str, Any]:
    env = call_tool("timeline", arguments)
    assert_valid_envelope(env)
    return env


def _churn(**arguments: Any) -> dict[str, Any]:
    env = call_tool("churn", arguments)
    assert_valid_envelope(env)
    return env


def test_timeline_continues_across_a_rename(repo: FixtureRepo) -> None:
    env = _timeline(repo=str(repo.path), entity="python:function:demo.session.login")
    kinds = [i["change_kind"] for i in env["data"]["items"]]
    assert kinds == ["added", "modified", "moved", "modified"]
    moved = env["data"]["items"][2]
    assert moved["previous_locator"] == "python:function:demo.auth.login"
    assert env["data"]["entity"]["locator"] == "python:function:demo.session.login"


def test_timeline_accepts_every_ref_kind(repo: FixtureRepo) -> None:
    by_locator = _timeline(repo=str(repo.path),
                           entity_ref={"kind": "locator",
                                       "value": "python:function:demo.session.login"})
    key = by_locator["data"]["entity"]["warpline_entity_key_id"]
    for ref in ({"kind": "qualname", "value": "demo.session.login"},
                {"kind": "warpline_entity_key_id", "value": str(key)},
                "demo.session.login"):
        env = _timeline(repo=str(repo.path), entity_ref=ref) if isinstance(ref, dict) \
            else _timeline(repo=str(repo.path), entity=ref)
        assert env["data"]["items"] == by_locator["data"]["items"]


def test_a_path_ref_gives_the_file_timeline(repo: FixtureRepo) -> None:
    env = _timeline(repo=str(repo.path), entity_ref={"kind": "path",
                                                      "value": "src/demo/session.py"})
    assert env["data"]["entity"]["locator"] == "core:file:src/demo/session.py"
    assert [i["change_kind"] for i in env["data"]["items"]] == ["added", "modified", "moved",
                                                               "modified"]


def test_an_unknown_entity_is_an_honest_empty_timeline(repo: FixtureRepo) -> None:
    env = _timeline(repo=str(repo.path), entity="python:function:demo.nowhere")
    assert env["data"]["items"] == []
    assert env["data"]["entity"]["sei_resolution"] == "unknown"
    assert env["warnings"]


def test_timeline_without_an_entity_is_missing_required_field(repo: FixtureRepo) -> None:
    with pytest.raises(WarplineError) as err:
        call_tool("timeline", {"repo": str(repo.path)})
    assert err.value.code == "missing_required_field"


def test_timeline_with_an_unknown_ref_kind_is_invalid_entity_ref(repo: FixtureRepo) -> None:
    with pytest.raises(WarplineError) as err:
        call_tool("timeline", {"repo": str(repo.path),
                               "entity_ref": {"kind": "colour", "value": "x"}})
    assert err.value.code == "invalid_entity_ref"


def test_churn_counts_changes_and_answers_zero_for_the_never_observed(repo: FixtureRepo) -> None:
    env = _churn(repo=str(repo.path), entity_refs=[
        "python:function:demo.session.login",
        "python:function:demo.session.logout",
        {"kind": "sei", "value": "loomweave:eid:unknown-0001"},
        "python:function:demo.never",
    ])
    by = {(i["entity"]["locator"], i["entity"]["sei"]): i for i in env["data"]["items"]}
    assert by[("python:function:demo.session.login", None)]["churn_count"] == 4
    assert by[("python:function:demo.session.logout", None)]["churn_count"] == 2
    assert by[(None, "loomweave:eid:unknown-0001")]["churn_count"] == 0
    assert by[("python:function:demo.never", None)]["churn_count"] == 0
    assert [i["churn_count"] for i in env["data"]["items"]] == [4, 2, 0, 0]


def test_churn_echoes_a_stored_sei_and_its_locator(repo: FixtureRepo) -> None:
    _churn(repo=str(repo.path), entity_refs=["demo.session.login"])
    with Store.open(repo.path) as store, store.transaction() as tx:
        tx.execute("UPDATE entities SET sei = 'loomweave:eid:abc' WHERE locator = ?",
                   ("python:function:demo.session.login",))
    env = _churn(repo=str(repo.path), entity_refs=[{"kind": "sei", "value": "loomweave:eid:abc"}])
    item = env["data"]["items"][0]
    assert item["entity"] == {**item["entity"], "sei": "loomweave:eid:abc",
                              "locator": "python:function:demo.session.login"}
    assert item["churn_count"] == 4


def test_churn_window_filters_by_instant_and_by_range(repo: FixtureRepo) -> None:
    whole = _churn(repo=str(repo.path), entity_refs=["python:function:demo.session.login"])
    last = whole["data"]["items"][0]["last_changed_at"]
    env = _churn(repo=str(repo.path), entity_refs=["python:function:demo.session.login"],
                 window={"since": last})
    assert env["data"]["items"][0]["churn_count"] == 1
    env = _churn(repo=str(repo.path), entity_refs=["python:function:demo.session.login"],
                 window={"rev_range": "HEAD~2..HEAD"})
    assert env["data"]["items"][0]["churn_count"] == 2


def test_churn_answers_fifty_thousand_refs_in_band(repo: FixtureRepo) -> None:
    refs = [f"python:function:demo.gen.f{n}" for n in range(49_999)]
    refs.append("python:function:demo.session.login")
    # The envelope guard validates this envelope where it is made (tests/conftest.py);
    # validating 50,000 items a second time would double the test's cost for nothing.
    env = call_tool("churn", {"repo": str(repo.path), "entity_refs": refs, "limit": 50_000})
    assert len(env["data"]["items"]) == 50_000
    assert env["data"]["items"][0]["churn_count"] == 4
    assert env["data"]["page"]["has_more"] is False


def test_churn_pages_through_its_items(repo: FixtureRepo) -> None:
    refs = [f"python:function:demo.gen.f{n}" for n in range(7)]
    first = _churn(repo=str(repo.path), entity_refs=refs, limit=5)
    assert first["data"]["page"]["has_more"] is True
    second = _churn(repo=str(repo.path), entity_refs=refs, limit=5,
                    cursor=first["data"]["page"]["next_cursor"])
    assert len(first["data"]["items"]) + len(second["data"]["items"]) == 7
    assert second["data"]["page"]["has_more"] is False


def test_churn_rejects_a_malformed_ref_naming_its_index(repo: FixtureRepo) -> None:
    with pytest.raises(WarplineError) as err:
        call_tool("churn", {"repo": str(repo.path), "entity_refs": ["ok", {"kind": "sei"}]})
    assert err.value.code in ("invalid_entity_ref", "missing_required_field")
    assert err.value.field is not None and err.value.field.startswith("entity_refs")


def test_a_renamed_away_locator_keeps_only_its_own_churn(repo: FixtureRepo) -> None:
    env = _churn(repo=str(repo.path), entity_refs=["python:function:demo.auth.login",
                                                    "python:function:demo.session.login"])
    counts = {i["entity"]["locator"]: i["churn_count"] for i in env["data"]["items"]}
    assert counts == {"python:function:demo.auth.login": 2,
                      "python:function:demo.session.login": 4}
