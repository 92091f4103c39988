"""The suite-wide envelope check holds, in this process and in the processes tests start."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from warpline import registry


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
