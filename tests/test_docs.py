"""The docs tell the truth: no links out of the repository, every module placed, tables
that render."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "warpline"
DOCS = sorted([ROOT / "README.md", ROOT / "bench" / "README.md",
               *(ROOT / "docs").glob("*.md")])


def _layout() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    return text[text.index("## Layout"):text.index("## Wire decisions")]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_points_outside_the_repository(doc: Path) -> None:
    # A clone has no ../shared/ (or any sibling directory): such a link is dead on arrival.
    assert re.findall(r"\.\./[\w.-]+/", doc.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("module", sorted(
    p for p in PACKAGE.rglob("*.py") if p.name not in {"__init__.py", "__main__.py"}),
    ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_architecture_page_places_every_module(module: Path) -> None:
    layout = _layout()
    room = module.parent.relative_to(PACKAGE)
    assert module.name in layout
    if str(room) != ".":
        section = layout[layout.index(f"  {room}/"):]
        following = re.search(r"\n  [a-z_]+(/|\.py)", section[len(f"  {room}/"):])
        own = section[: len(f"  {room}/") + (following.start() if following else len(section))]
        assert module.name in own, f"{module.name} is not listed under {room}/"


def _tables(text: str) -> list[list[str]]:
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def _cells(row: str) -> int:
    return len(re.split(r"(?<!\\)\|", row.strip().strip("|")))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_renders(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    lines = text.splitlines()
    for table in _tables(text):
        assert re.fullmatch(r"\|( *:?-+:? *\|)+", table[1].replace(" ", "")), table[:2]
        width = _cells(table[0])
        assert all(_cells(row) == width for row in table), table[0]
        start = lines.index(table[0])
        end = start + len(table)
        # A table needs a blank line before it, and one after (else the next paragraph
        # is swallowed as a row).
        assert start == 0 or lines[start - 1].strip() == "", table[0]
        assert end == len(lines) or lines[end].strip() == "", table[-1]


def test_every_package_is_listed_for_the_wheel() -> None:
    # setuptools ships only the packages pyproject names: a new subpackage left out works
    # from a checkout (and an editable install) and is missing from an installed wheel.
    import tomllib

    root = Path(__file__).resolve().parent.parent
    listed = set(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(root).parts)
             for p in (root / "warpline").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
