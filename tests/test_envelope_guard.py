"""The suite-wide envelope check holds, in this process and in the processes tests start."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import ValidationError

from tests.envelope_guard.sitecustomize import certainly_valid, check
from tests.gitfixture import FixtureRepo
from tests.test_contracts import EXAMPLES
from warpline import models, registry
from warpline.contracts_io import validate_envelope


def test_the_dispatcher_is_wrapped_in_this_process() -> None:
    assert getattr(registry.dispatch, "envelope_guard", False) is True


def test_an_envelope_that_breaks_its_contract_fails_where_it_is_made(tmp_path: Path) -> None:
    spec = registry.tool_by_name("project_status")

    def broken(params: Any, cwd: Path | None) -> dict[str, Any]:
        envelope = spec.handler(params, cwd)
        del envelope["meta"]
        return envelope

    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"a.py": "x = 1\n"})
    with pytest.raises(AssertionError):
        registry.dispatch(dataclasses.replace(spec, handler=broken), {"repo": str(repo.path)},
                          None)


def test_a_started_process_wraps_the_dispatcher_too(tmp_path: Path) -> None:
    code = ("import json, warpline.registry as r; "
            "print(json.dumps(getattr(r.dispatch, 'envelope_guard', False)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env=os.environ.copy(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) is True


@pytest.mark.parametrize("tool", sorted(EXAMPLES))
def test_the_compiled_verdict_agrees_on_every_tools_example(tool: str) -> None:
    envelope = models.dump(EXAMPLES[tool]())
    validate_envelope(envelope)
    assert certainly_valid(envelope) is True


@pytest.mark.parametrize("mutate", [
    lambda e: e.pop("meta"),
    lambda e: e.update(ok=False),
    lambda e: e["meta"].update(local_only=False),
    lambda e: e["enrichment"].update(sei="stale"),
    lambda e: e["data"]["items"][0].update(churn_count=-1),
    lambda e: e["data"]["items"][0].update(observed="yes"),
    lambda e: e["data"]["items"][0]["entity"].pop("sei"),
    lambda e: e["data"]["items"][0].update(last_changed_at="2026-06-25T10:00:00+00:00"),
    lambda e: e["data"]["items"].append({"ref": "x"}),
    lambda e: e.update(schema="warpline.nope.v1"),
], ids=["meta", "ok", "local_only", "enrichment", "count", "observed", "sei", "timestamp",
        "item", "schema"])
def test_what_the_reference_rejects_the_compiled_verdict_never_passes(
        mutate: Callable[[dict[str, Any]], None]) -> None:
    envelope = models.dump(EXAMPLES["warpline_entity_churn_count_get"]())
    mutate(envelope)
    with pytest.raises((ValidationError, ValueError)):
        validate_envelope(envelope)
    assert certainly_valid(envelope) is False
    with pytest.raises(AssertionError):
        check(envelope)
