"""Lineage's cheap parts give the answers of the full ones (``warpline.git.lineage``):
the quick bound from each text's line counts is difflib's ``quick_ratio``; candidates'
texts from one walk of the definition tree, and their own texts read only for a pair, are
the texts of the full entity build; pairs through real histories keep their flags."""

from __future__ import annotations

import random
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from tests.langwalk import changes
from warpline.git import lineage
from warpline.git.candidates import candidates
from warpline.git.deftext import definition_text, leaf, normal, span_lines
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange
from warpline.git.pairscore import quick_ratio
from warpline.lang import by_name
from warpline.lang.entities import MODULE_KEY, split_lines


def _candidate(text: tuple[bytes, ...]) -> lineage.Candidate:
    change = EntityChange("python:function:m.f", "function", "removed", "m.py")
    return lineage.Candidate(change, ("function", "f"), b"f", text, [], None)  # type: ignore[arg-type]


def test_the_quick_bound_from_line_counts_is_difflibs() -> None:
    rng = random.Random(26)
    alphabet = [b"a", b"b", b"c", b"return x", b"}", b""]
    for _ in range(500):
        a = tuple(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        b = tuple(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        old, new = _candidate(a), _candidate(b)
        expected = SequenceMatcher(None, a, b, autojunk=False).quick_ratio()
        assert quick_ratio(old, new, len(a) + len(b)) == expected, (a, b)
        assert quick_ratio(new, old, len(a) + len(b)) == expected, (a, b)


SOURCES = {
    "python": ("m.py", b"from typing import overload\n\n\nclass A:\n    # note\n"
                       b"    def f(self):\n        def g():\n            return 1\n"
                       b"        return g()\n\n    @overload\n    def h(self, x: int) -> int: ...\n"
                       b"    @overload\n    def h(self, x: str) -> str: ...\n"
                       b"    def h(self, x):\n        return x\n\n\ndef top():\n    pass\n"),
    "rust": ("src/lib.rs", b"pub struct S;\n\nimpl S {\n    /// A.\n    pub fn a(&self) -> u8 {\n"
                           b"        fn inner() {}\n        1\n    }\n}\n\nimpl S {\n"
                           b"    pub fn b(&self) {}\n}\n\nmod m {\n    pub fn c() {}\n}\n"),
    "java": ("src/main/java/p/C.java", b"package p;\n\nclass C {\n    int x;\n\n"
                                       b"    /** Doc. */\n    void m() {\n"
                                       b"        Runnable r = new Runnable() {\n"
                                       b"            public void run() {}\n        };\n"
                                       b"    }\n\n    class Inner {\n        void n() {}\n"
                                       b"    }\n}\n"),
}


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_candidates_read_the_texts_of_the_full_entity_build(language: str) -> None:
    path, source = SOURCES[language]
    row = by_name(language)
    entities = row.read(source)
    assert entities is not None
    lines = split_lines(source)
    side = PySide(path, "p", entities)
    found = [EntityChange(side.locator(key), side.kind(key), "removed", path)
             for key in sorted(entities.keys()) if key != MODULE_KEY]
    sides = {path: (side, lambda: lines)}
    read = candidates(found, sides)
    assert len(read) == len(found) > 3
    full = {e.key: e for e in entities.entities}  # the reference: every entity built
    for candidate in read:
        entity = full[candidate.key]
        name = leaf(candidate.key[1]).encode()
        assert candidate.text == definition_text(lines, list(entity.spans), name, language,
                                                 entity.key[0])
        assert candidate.own == normal(span_lines(lines, entity.own), name)


BEFORE = ("class Parser:\n    def parse(self, text):\n        head, _, rest = text.partition(':')\n"
          "        head = head.strip()\n        rest = rest.strip()\n        return head, rest\n\n"
          "    def reset(self):\n        self.state = None\n        self.count = 0\n"
          "        self.buffer = []\n        return self\n")


def test_a_renamed_class_carries_its_methods_edited_or_not(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path)
    repo.commit({"pkg/parse.py": BEFORE}, "base")
    after = BEFORE.replace("class Parser", "class HeaderParser").replace(
        "self.count = 0", "self.count = 1")
    sha = repo.commit({"pkg/parse.py": after}, "rename")
    moved = {c.locator: (c.previous_locator, c.also_modified)
             for c in changes(repo, sha).changes if c.change_kind == "moved"}
    assert moved == {
        "python:class:pkg.parse.HeaderParser": ("python:class:pkg.parse.Parser", False),
        "python:function:pkg.parse.HeaderParser.parse": (
            "python:function:pkg.parse.Parser.parse", False),
        "python:function:pkg.parse.HeaderParser.reset": (
            "python:function:pkg.parse.Parser.reset", True)}
