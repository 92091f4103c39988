"""The v1 contracts change additively only: nothing pinned may disappear.

``contracts/`` is regenerated from the models (the drift check keeps the two equal); this
test holds the result to the pinned v1 promises in ``tests/pins/contracts-v1.json``: every
field path, every enum/const value and every tool's names and schema files must still be
there. A new optional field or enum value passes (re-pin with ``python -m
tests.contract_pin``); a removal or rename fails.
"""

from __future__ import annotations

import copy
import json

from tests.contract_pin import PIN, broken, promises, tool_promises

PINNED = json.loads(PIN.read_text(encoding="utf-8"))


def test_no_pinned_field_or_enum_value_was_removed() -> None:
    assert broken(PINNED["contracts"], promises()) == []


def test_every_pinned_tool_keeps_its_names_and_schema_files() -> None:
    current = tool_promises()
    assert {name: current.get(name) for name in PINNED["tools"]} == PINNED["tools"]


def test_the_pin_covers_every_envelope_and_input_contract() -> None:
    assert set(PINNED["contracts"]) == set(promises())


def test_a_removal_is_caught_and_an_addition_is_not() -> None:
    current = promises()
    name = "warpline.change_list.v1.json"
    removed = copy.deepcopy(current)
    field = next(path for path in removed[name] if path.startswith(".data"))
    del removed[name][field]
    fewer_values = copy.deepcopy(current)
    path, values = next((p, v) for p, v in fewer_values[name].items() if len(v) > 1)
    fewer_values[name][path] = values[1:]
    added = copy.deepcopy(current)
    added[name][".data.brand_new"] = []
    assert broken(current, removed) == [f"{name}: {field} was removed"]
    assert broken(current, fewer_values) == [
        f"{name}: {path}: enum value {values[0]!r} was removed"]
    assert broken(current, added) == []
