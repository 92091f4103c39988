"""The one attribution window of an edit read whole (warpline/git/window.py): offered only
when every line around the hunks keeps its owner, and attributing exactly as comparing
whole files does."""

from __future__ import annotations

import pytest

from tests.test_lang_regions import (
    GO,
    GO_EDITS,
    JAVA,
    JAVA_EDITS,
    RUST,
    RUST_EDITS,
    SCRIPT,
    SCRIPT_EDITS,
)
from warpline.git.diffmap import PySide, edited_changes
from warpline.git.events import EntityChange
from warpline.git.hunks import hunks_and_lines
from warpline.git.window import one_window
from warpline.lang import golang, java, rust, script, tsregions
from warpline.lang.entities import FileEntities, Window, split_lines


def _read(name: str, text: str) -> FileEntities:
    tsregions.clear()
    reader = {"rust": rust.read, "go": golang.read, "java": java.read,
              "js": script.read_javascript}[name]
    found = reader(text.encode(), None)
    assert found is not None
    return found


def _sides(name: str, old_text: str, new_text: str) -> tuple[FileEntities, FileEntities]:
    return _read(name, old_text), _read(name, new_text)


def test_a_body_edit_is_compared_inside_its_hunk() -> None:
    new_text = RUST.replace("self.x\n", "self.x + 1\n", 1)
    old, new = _sides("rust", RUST, new_text)
    hunks = hunks_and_lines(RUST.encode(), new_text.encode(), None)[0]
    assert len(hunks) == 1
    line = hunks[0][0]
    assert one_window(old, new, hunks) == Window(line, line, line, line)


def test_a_renamed_definition_changes_the_owner_of_lines_outside_the_hunk() -> None:
    new_text = RUST.replace("pub fn x(&self)", "pub fn y(&self)", 1)
    old, new = _sides("rust", RUST, new_text)
    hunks = hunks_and_lines(RUST.encode(), new_text.encode(), None)[0]
    assert one_window(old, new, hunks) is None


def test_a_lost_brace_changes_owners_below_the_hunk() -> None:
    new_text = GO.replace("\treturn &Point{X: x}\n}\n", "\treturn &Point{X: x}\n", 1)
    old, new = _sides("go", GO, new_text)
    hunks = hunks_and_lines(GO.encode(), new_text.encode(), None)[0]
    assert one_window(old, new, hunks) is None


CASES = [("rust", RUST, RUST_EDITS), ("go", GO, GO_EDITS), ("java", JAVA, JAVA_EDITS),
         ("js", SCRIPT, SCRIPT_EDITS)]


@pytest.mark.parametrize(("name", "edit"),
                         [(name, edit) for name, _, table in CASES for edit in sorted(table)])
def test_the_window_attributes_as_whole_files_do(name: str, edit: str) -> None:
    text, table = next((text, table) for key, text, table in CASES if key == name)
    old_part, new_part = table[edit]
    new_text = text.replace(old_part, new_part, 1)
    old, new = _sides(name, text, new_text)
    hunks = hunks_and_lines(text.encode(), new_text.encode(), None)[0]
    old_lines, new_lines = split_lines(text.encode()), split_lines(new_text.encode())
    module = "demo"
    sides = (PySide("f", module, old), PySide("f", module, new))
    windowed: list[EntityChange] = []
    whole: list[EntityChange] = []
    edited_changes(*sides, hunks, None, old_lines, new_lines, windowed)
    edited_changes(*sides, hunks, [Window(1, old.line_count, 1, new.line_count)], old_lines,
                   new_lines, whole)
    assert sorted(windowed, key=repr) == sorted(whole, key=repr)
