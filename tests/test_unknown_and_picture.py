"""Unknown said as unknown, and a picture a person can read (issue 34).

A repository whose changed code is in a language the edge snapshot holds nothing of: every
answer about its dependents says "unknown" (blast radius in every format, session-context),
never "none" or "Nothing missing" (the rule: ``service/shared/unseen.py``). And the blast
radius drawn with graphviz: grouped by file, the edges between changed entities drawn, a
legend, no paging token, within 2,000 px with a note where it was cut."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from tests.hookrepo import cli
from warpline.cli.formats import render_format
from warpline.graph.builtin import EXTRACTORS
from warpline.lang import LANGUAGES
from warpline.models import ImpactRadiusData, ImpactRadiusEnvelope, Query
from warpline.models.common import dump

# One changed file per language; the test uses the first whose row no built-in extractor
# reads (which may change as extractors are added), beside Python, which one reads.
SAMPLES = {
    "go": ({"go.mod": "module example.com/tool\n\ngo 1.21\n"}, "cmd.go",
           "package tool\n\nfunc Run() int {\n\treturn %d\n}\n"),
    "rust": ({"Cargo.toml": '[package]\nname = "tool"\nversion = "0.1.0"\n'}, "src/lib.rs",
             "pub fn run() -> i32 {\n    %d\n}\n"),
    "java": ({}, "src/main/java/org/demo/Tool.java",
             "package org.demo;\n\npublic class Tool {\n    int run() { return %d; }\n}\n"),
    "typescript": ({}, "src/tool.ts", "export function run(): number {\n  return %d;\n}\n"),
}
PY = "def helper():\n    return 1\n\n\ndef caller():\n    return helper()\n"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None and not os.environ.get("CI"),
                               reason="graphviz `dot` is installed by .ci/run")


def _unread_language() -> str | None:
    for lang in LANGUAGES:
        if lang.name in SAMPLES and lang.name not in EXTRACTORS:
            return lang.name
    return None


@pytest.fixture
def blind(tmp_path: Path) -> FixtureRepo:
    # Every language with a sample has a built-in extractor now: the snapshot is taken
    # before the repository holds any of the language's code, which is added after it.
    extra, path, code = SAMPLES[_unread_language() or "java"]
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/core.py": PY}, message="one")
    for args in (["install", "--no-backfill", "--config"], ["backfill"],
                 ["capture-snapshot"]):
        done = cli(*args, "--repo", str(repo.path))
        assert done.returncode == 0, done.stderr
    repo.commit({**extra, path: code % 1}, message="two")
    repo.commit({path: code % 2}, message="three")
    done = cli("backfill", "--repo", str(repo.path))
    assert done.returncode == 0, done.stderr
    return repo


def test_blast_radius_says_unknown_in_every_format_when_the_graph_cannot_see_the_code(
        blind: FixtureRepo) -> None:
    done = cli("blast-radius", "HEAD", "--repo", str(blind.path), "--json")
    env = json.loads(done.stdout)
    assert_valid_envelope(env)
    assert env["data"]["completeness"] == "DELTA" and env["data"]["affected"] == []
    table = cli("blast-radius", "HEAD", "--repo", str(blind.path)).stdout
    assert "affected: unknown" in table and "none within" not in table
    for fmt in ("mermaid", "dot"):
        text = cli("blast-radius", "HEAD", "--repo", str(blind.path), "--format", fmt).stdout
        assert "unknown" in text and "(FULL)" not in text, fmt


def test_session_context_names_the_gap_instead_of_nothing_missing(blind: FixtureRepo) -> None:
    done = cli("session-context", "--repo", str(blind.path), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    # The gap named: "Missing: ..." over a current snapshot, "holding no <language>
    # entities (their dependents unknown)" over one taken before the language came.
    assert "Nothing missing" not in data["line"]
    assert "Missing:" in data["line"] or "entities (their dependents unknown)" in data["line"]
    assert " FULL snapshot" not in data["line"] and "DELTA" in data["line"]
    assert data["unseen_languages"]


def test_session_context_still_says_nothing_missing_when_the_graph_sees_all(
        tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/core.py": PY}, message="one")
    for args in (["install", "--no-backfill", "--config"], ["backfill"],
                 ["capture-snapshot"]):
        assert cli(*args, "--repo", str(repo.path)).returncode == 0
    data = json.loads(cli("session-context", "--repo", str(repo.path), "--json").stdout)
    assert data["line"].endswith("Nothing missing.") and data["unseen_languages"] == []


# -- the picture ------------------------------------------------------------------------------

def _entity(locator: str, path: str, kind: str = "function") -> dict[str, Any]:
    return {"locator": locator, "sei": None, "warpline_entity_key_id": None, "path": path,
            "kind": kind, "language": "python", "language_kind": kind}


def _big_envelope() -> dict[str, Any]:
    """60 changed functions in 12 files calling each other, 200 dependents, a next page."""
    changed = [_entity(f"python:function:pkg.mod{f}.f{i}", f"pkg/mod{f}.py")
               for f in range(12) for i in range(5)]
    edges = [{"from": changed[i]["locator"], "to": changed[i + 1]["locator"],
              "from_sei": None, "to_sei": None, "kind": "calls", "confidence": "resolved"}
             for i in range(0, 59, 2)]
    affected = [{"entity": _entity(f"python:function:app.use{n}.g{n}", f"app/use{n % 9}.py"),
                 "depth": 1, "seed": changed[n % 60]["locator"],
                 "via_edges": [{"from": f"python:function:app.use{n}.g{n}",
                                "to": changed[n % 60]["locator"], "from_sei": None,
                                "to_sei": None, "kind": "calls", "confidence": "resolved"}]}
                for n in range(100)]
    model = ImpactRadiusEnvelope(
        query=Query(repo="/r", tool="warpline_impact_radius_get"),
        data=ImpactRadiusData.model_validate({
            "completeness": "FULL",
            "staleness": {"snapshot_id": 1, "snapshot_commit": "a" * 40,
                          "snapshot_captured_at": "2026-06-25T10:00:00Z",
                          "snapshot_source": "builtin", "head_commit": "a" * 40,
                          "commits_behind": 0, "is_ancestor": True, "dirty_paths": [],
                          "stale": False},
            "changed": [{"entity": e, "in_snapshot": True} for e in changed],
            "affected": affected,
            "ingest": {"head_commit": "a" * 40, "commits_behind": 0, "complete": True},
            "total": 200,
            "page": {"limit": 100, "has_more": True, "next_cursor": "c2VjcmV0LWN1cnNvcg"},
            "changed_edges": edges}))
    envelope: dict[str, Any] = dump(model)
    assert_valid_envelope(envelope)
    return envelope


@needs_dot
def test_a_big_blast_radius_draws_a_readable_bounded_picture(tmp_path: Path) -> None:
    text = render_format("blast_radius", _big_envelope(), "dot")
    assert "c2VjcmV0LWN1cnNvcg" not in text and "--cursor" not in text  # no paging token
    assert "legend" in text and "Cut to fit" in text
    clusters = re.findall(r'subgraph cluster_\d+ \{\n\s+label="([^"]+)"', text)
    assert "pkg/mod0.py" in clusters and len(clusters) >= 6  # grouped by file
    between = [line for line in text.splitlines()
               if re.match(r"\s+n\d+ -> n\d+ .*penwidth=2", line)]
    assert between  # the edges between changed entities are drawn
    png = subprocess.run(["dot", "-Tpng"], input=text.encode(), capture_output=True,
                         timeout=120, check=True).stdout
    width, height = struct.unpack(">II", png[16:24])
    assert max(width, height) <= 2000, (width, height)
