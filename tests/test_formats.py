"""``--format`` renderings: markdown worklists, mermaid and dot blast radii.

The envelopes are built from the frozen models (so the renderers read exactly the contract
shapes); the dot output is parsed by graphviz's own ``dot -Tsvg``. mermaid-cli needs a
headless browser it downloads at install time, which this environment cannot fetch, so the
mermaid output gets a structural check instead: every node declared once, every edge
between declared ids, labels free of characters that would end them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from tests.hookrepo import cli
from warpline.cli.formats import render_format, short_name, supported_formats
from warpline.errors import InvalidArgument
from warpline.models import (
    ImpactRadiusData,
    ImpactRadiusEnvelope,
    Query,
    ReverifyWorklistData,
    ReverifyWorklistEnvelope,
)
from warpline.models.common import dump
from warpline.models.envelope import NextActions

HEAD = "c0ffee" + "0" * 34
SNAP = "5a5a5a" + "0" * 34
SEED = "python:function:demo.auth.login"
MID = "python:function:demo.api.handle"
TOP = 'python:function:demo.cli.main"quoted\\<weird>|#'
SIDE = "python:class:demo.session.Session"


def _edge(frm: str, to: str, kind: str = "calls") -> dict[str, Any]:
    return {"from": frm, "to": to, "kind": kind}


def _entity(locator: str, kind: str = "function", path: str = "demo/x.py") -> dict[str, Any]:
    return {"locator": locator, "sei": None, "path": path, "kind": kind}


def _staleness(**overrides: Any) -> dict[str, Any]:
    base = {"snapshot_id": 1, "snapshot_commit": SNAP, "snapshot_source": "builtin",
            "snapshot_captured_at": "2026-06-25T10:00:00Z", "head_commit": HEAD,
            "commits_behind": 0, "is_ancestor": True, "stale": False, "dirty_paths": []}
    return {**base, **overrides}


def impact_envelope(completeness: str = "FULL", **staleness: Any) -> dict[str, Any]:
    affected = [
        {"entity": _entity(MID), "depth": 1, "seed": SEED, "via_edges": [_edge(MID, SEED)]},
        {"entity": _entity(TOP), "depth": 2, "seed": SEED,
         "via_edges": [_edge(MID, SEED), _edge(TOP, MID)]},
        {"entity": _entity(SIDE, "class"), "depth": 1, "seed": SEED,
         "via_edges": [_edge(SIDE, SEED, "references")]},
    ] if completeness != "NO_SNAPSHOT" else []
    model = ImpactRadiusEnvelope(
        query=Query(repo="/r", tool="warpline_impact_radius_get"),
        data=ImpactRadiusData.model_validate({
            "completeness": completeness, "staleness": _staleness(**staleness),
            "changed": [{"entity": _entity(SEED, path="demo/auth.py"), "in_snapshot": True}],
            "affected": affected,
            "ingest": {"head_commit": HEAD, "commits_behind": 0, "complete": True},
            "total": len(affected), "page": {"limit": 50, "has_more": False}}))
    envelope = dump(model)
    assert_valid_envelope(envelope)
    return envelope


def _verification(state: str, commit: str | None = None) -> dict[str, Any]:
    return {"state": state, "last_verified_commit": commit, "kinds": ["test_pass"] if commit
            else [], "last_verified_at": "2026-06-25T10:00:00Z" if commit else None}


def worklist_envelope(completeness: str = "FULL", *, has_more: bool = False,
                      map_tests: int | None = None, **staleness: Any) -> dict[str, Any]:
    items = [
        {"entity": _entity(SEED, path="demo/auth.py"), "reason": "changed", "depth": 0,
         "priority": "P1", "verification": _verification("stale", SNAP),
         "suggested_verification": [{"kind": "test", "command":
                                     "pytest tests/test_auth.py::test_login",
                                     "test": "python:function:tests.test_auth.test_login",
                                     "distance": 1}]},
        {"entity": _entity(TOP), "reason": "downstream", "depth": 2, "seed": SEED,
         "why": [_edge(MID, SEED), _edge(TOP, MID)], "verification": _verification("unverified"),
         "suggested_verification": [{"kind": "inspection", "command": None,
                                     "callers": [MID]}], "map_tests": map_tests},
    ]
    selection = {"basis": "static", "tests_selected": 2, "tests_known": 40,
                 "tests": ["tests/test_auth.py", "tests/test_api.py::test_handle"],
                 "floor_files": 1}
    model = ReverifyWorklistEnvelope(
        query=Query(repo="/r", tool="warpline_reverify_worklist_get",
                    arguments={"repo": "/r", "rev_range": "HEAD~2..HEAD"}),
        data=ReverifyWorklistData.model_validate({
            "completeness": completeness, "staleness": _staleness(**staleness),
            "items": items, "verification_summary": {"fresh": 0, "stale": 1, "unverified": 1},
            "ingest": {"head_commit": HEAD, "commits_behind": 3, "complete": False},
            "total": 7 if has_more else 2, "changed_total": 1, "selection": selection,
            "page": {"limit": 2, "has_more": has_more,
                     "next_cursor": "abc" if has_more else None}}),
        warnings=["The store is 3 commits behind HEAD."],
        next_actions=NextActions.model_validate(
            {"commands": [{"command": "pytest tests/test_auth.py tests/test_api.py::test_handle",
                           "why": "Runs the selection."}]}))
    envelope = dump(model)
    assert_valid_envelope(envelope)
    return envelope


# -- dot ----------------------------------------------------------------------------------

# Skipped only off CI: .ci/run installs graphviz, so there a missing `dot` fails.
needs_dot = pytest.mark.skipif(shutil.which("dot") is None and not os.environ.get("CI"),
                               reason="graphviz `dot` is installed by .ci/run")


def _drawn(svg: str) -> tuple[int, int]:
    """Entity nodes and edges of a rendered blast radius (the legend's are not counted)."""
    nodes = len(re.findall(r"<title>n\d+</title>", svg))
    edges = len(re.findall(r"<title>n\d+&#45;&gt;n\d+</title>", svg))
    return nodes, edges


def _dot_svg(text: str) -> str:
    done = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert not done.stderr.strip(), done.stderr  # graphviz warns on syntax it repaired
    return done.stdout


@needs_dot
def test_dot_blast_radius_parses_with_graphviz_and_draws_every_edge() -> None:
    svg = _dot_svg(render_format("warpline_impact_radius_get", impact_envelope(), "dot"))
    assert _drawn(svg) == (4, 3)
    assert "legend" in svg


@needs_dot
@pytest.mark.parametrize("completeness", ["NO_SNAPSHOT", "DELTA"])
def test_dot_still_parses_when_the_graph_is_partial(completeness: str) -> None:
    envelope = impact_envelope(completeness, stale=True, commits_behind=4)
    text = render_format("blast_radius", envelope, "dot")
    svg = _dot_svg(text)
    assert _drawn(svg)[0] == (1 if completeness == "NO_SNAPSHOT" else 4)
    assert "4 commits" in text


def test_dot_output_is_deterministic() -> None:
    envelope = impact_envelope()
    assert render_format("blast_radius", envelope, "dot") == \
        render_format("blast_radius", envelope, "dot")


# -- mermaid ------------------------------------------------------------------------------

_NODE = re.compile(r'^ {4,8}(n\d+)\["([^"]*)"\]:::(changed|affected|path)$')
_EDGE = re.compile(r"^    (n\d+) (?:-->|==>)\|(calls|references)\| (n\d+)$")
_GROUP = re.compile(r'^    (?:subgraph f\d+\["[^"]*"\]|end)$')


def mermaid_structure(text: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """Parse our mermaid subset strictly; any other line fails the test."""
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "---" and lines[1].startswith('title: "') and lines[2] == "---"
    assert lines[3] == "flowchart LR"
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []
    classes = set()
    for line in lines[4:]:
        if line.startswith("    %% ") or line.startswith("    classDef "):
            classes.add(line.split()[1]) if "classDef" in line else None
            continue
        if _GROUP.match(line):
            continue
        node, edge = _NODE.match(line), _EDGE.match(line)
        assert node or edge, f"unexpected mermaid line: {line!r}"
        if node:
            assert node.group(1) not in nodes, f"{node.group(1)} declared twice"
            assert node.group(3) in classes, "class used before its classDef"
            nodes[node.group(1)] = node.group(2)
        elif edge:
            edges.append((edge.group(1), edge.group(2), edge.group(3)))
    for source, _, target in edges:
        assert source in nodes and target in nodes, "edge between undeclared ids"
    return nodes, edges


def test_mermaid_blast_radius_declares_every_node_before_its_edges() -> None:
    text = render_format("warpline_impact_radius_get", impact_envelope(), "mermaid")
    nodes, edges = mermaid_structure(text)
    assert len(nodes) == 4 and len(edges) == 3
    labels = " ".join(nodes.values())
    assert "auth.login" in labels and "depth 2" in labels
    assert 'subgraph f0["demo/auth.py"]' in text  # grouped by file, its name once
    assert "#34;" in labels and "#60;" in labels  # the quote and < in TOP are escaped
    seed_id = next(i for i, label in nodes.items() if label.startswith("auth.login"))
    assert {target for _, _, target in edges if target == seed_id}  # arrows lead to the seed


def test_mermaid_says_in_words_when_there_is_no_graph() -> None:
    text = render_format("blast_radius", impact_envelope("NO_SNAPSHOT"), "mermaid")
    nodes, edges = mermaid_structure(text)
    assert len(nodes) == 1 and not edges
    assert "mean nothing depends" in text


def test_graph_titles_count_the_whole_answer() -> None:
    envelope = impact_envelope()
    envelope["data"]["total"] = 133
    envelope["data"]["page"] = {"limit": 3, "has_more": True, "next_cursor": "abc"}
    assert "133 affected (3 on this page)" in render_format("blast_radius", envelope,
                                                             "mermaid")
    assert "3 affected (FULL)" in render_format("blast_radius", impact_envelope(), "mermaid")


def test_graph_formats_carry_the_warnings() -> None:
    envelope = impact_envelope()
    envelope["warnings"] = ["No test map: record one with `pytest --warpline-record`."]
    mermaid = render_format("blast_radius", envelope, "mermaid")
    assert "    %% No test map: record one with `pytest --warpline-record`." in mermaid
    mermaid_structure(mermaid)  # still a valid drawing
    dot = render_format("blast_radius", envelope, "dot")
    assert "// warning: No test map: record one with `pytest --warpline-record`." in dot


# -- markdown -----------------------------------------------------------------------------

def test_markdown_worklist_is_a_pull_request_comment() -> None:
    text = render_format("warpline_reverify_worklist_get", worklist_envelope(), "markdown")
    assert text.startswith("## warpline: what to re-verify for `HEAD~2..HEAD`")
    assert "**1 changed entity, 1 dependent**" in text
    assert "### Changed" in text and "### Dependents" in text
    # the why-path reads from the dependent to the changed entity
    assert "`demo.api.handle` calls `demo.auth.login`" in text
    # the one selection's command, not the items' own suggestions
    assert "### Tests to run: 2 selected (1 tests and 1 whole test files or folders; " \
           "basis static)\n\n```sh\npytest tests/test_auth.py " \
           "tests/test_api.py::test_handle\n```" in text
    assert "pytest tests/test_auth.py::test_login" not in text
    assert "tests: 2 selected (1 tests and 1 whole test files or folders; basis static)" \
        in text
    assert "⚠️ stale" in text and "❌ unverified" in text
    assert "3 commits behind HEAD" in text  # the ingest caveat, in words
    table_rows = [line for line in text.splitlines() if line.startswith("| ")]
    for row in table_rows:  # the | in TOP's locator is escaped, so every row has 6 cells
        assert len(re.split(r"(?<!\\)\|", row)) == 8, row


@pytest.mark.parametrize(("completeness", "staleness", "words"), [
    ("NO_SNAPSHOT", {}, "does **not** mean nothing depends on them"),
    ("DELTA", {}, "partial (DELTA)"),
    ("FULL", {"stale": True, "commits_behind": 5}, "5 commits behind HEAD"),
    ("FULL", {"stale": True, "commits_behind": None, "is_ancestor": False},
     "not an ancestor of HEAD"),
    ("FULL", {"stale": True, "dirty_paths": ["demo/auth.py"]}, "Uncommitted changes touch"),
])
def test_markdown_states_completeness_and_staleness_in_words(
        completeness: str, staleness: dict[str, Any], words: str) -> None:
    text = render_format("reverify", worklist_envelope(completeness, **staleness), "markdown")
    assert words in text
    assert "> [!WARNING]" in text


def test_markdown_says_when_more_items_are_on_later_pages() -> None:
    text = render_format("reverify", worklist_envelope(has_more=True), "markdown")
    assert "This shows 2 of 7 items" in text
    # the next page's command, runnable as printed (issue 34), not a bare flag
    assert "`warpline reverify 'HEAD~2..HEAD' --cursor abc --repo /r`" in text
    # the counts are the whole answer's, not the page's
    assert "**1 changed entity, 6 dependents**" in text
    assert "### Dependents (1 of 6 shown)" in text


def test_markdown_counts_the_tests_a_map_links_to_an_item() -> None:
    text = render_format("reverify", worklist_envelope(map_tests=107), "markdown")
    assert "107 (map)" in text
    assert "no test is known to reach" not in text and "To inspect by hand" not in text
    unmapped = render_format("reverify", worklist_envelope(), "markdown")
    assert "no test is known to reach it" in unmapped


def test_an_unsupported_format_is_an_invalid_argument_naming_the_choices() -> None:
    with pytest.raises(InvalidArgument) as caught:
        render_format("warpline_reverify_worklist_get", worklist_envelope(), "dot")
    assert caught.value.field == "format"
    assert supported_formats("reverify") == ("markdown", "pytest")
    assert supported_formats("blast_radius") == ("mermaid", "dot")


def test_short_names_drop_the_locator_prefix_only() -> None:
    assert short_name("python:function:a.b.c") == "a.b.c"
    assert short_name("core:file:docs/x.md") == "docs/x.md"
    assert short_name(None, "sei:1") == "sei:1"


# -- end to end: the issue-4 commands call these renderers ---------------------------------

CORE = "def helper():\n    return 1\n\n\ndef caller():\n    return helper() + 1\n"
TEST = "from app.core import caller\n\n\ndef test_caller():\n    assert caller() == 2\n"


def test_blast_radius_and_reverify_render_through_the_cli(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/__init__.py": "", "app/core.py": CORE, "tests/test_core.py": TEST}, "one")
    repo.commit({"app/core.py": CORE.replace("return 1", "return 10")}, "two")
    for args in (["backfill"], ["capture-snapshot"]):
        done = cli(*args, "--repo", str(repo.path))
        assert done.returncode == 0, done.stderr

    mermaid = cli("blast-radius", "HEAD", "--repo", str(repo.path), "--format", "mermaid")
    assert mermaid.returncode == 0, mermaid.stderr
    nodes, edges = mermaid_structure(mermaid.stdout)
    assert any(label.startswith("core.helper") for label in nodes.values())
    assert any(label.startswith("test_core.test_caller") for label in nodes.values())
    assert len(edges) == 2

    dot = cli("blast-radius", "HEAD", "--repo", str(repo.path), "--format", "dot")
    assert dot.returncode == 0, dot.stderr
    if shutil.which("dot") or os.environ.get("CI"):
        assert _drawn(_dot_svg(dot.stdout))[1] == 2

    markdown = cli("reverify", "HEAD", "--repo", str(repo.path), "--format", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert "`app.core.caller` calls `app.core.helper`" in markdown.stdout
    # the floor: the test file importing the changed module runs whole, as the command says
    command = cli("reverify", "HEAD", "--repo", str(repo.path), "--format", "pytest")
    assert command.stdout == "pytest tests/test_core.py\n"
    assert f"```sh\n{command.stdout}```" in markdown.stdout
