"""The table of languages (warpline/lang/__init__.py) and what answers say about each
entity's language (additive wire fields ``language``, ``language_kind``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git.hunks import hunks_and_lines
from warpline.lang import (
    LANGUAGES,
    LOCATOR_HEAD,
    PYTHON,
    RUST,
    describe_locator,
    language_of,
)
from warpline.lang.entities import split_lines
from warpline.lang.pyentities import parse_entities
from warpline.registry import call_tool

MANIFEST = '[package]\nname = "demo-crate"\nversion = "0.1.0"\n'


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    env = call_tool(tool, arguments)
    assert_valid_envelope(env)
    return env


def test_every_suffix_has_one_row_and_every_kind_maps_to_the_wire() -> None:
    suffixes = [s for lang in LANGUAGES for s in lang.suffixes]
    assert len(suffixes) == len(set(suffixes))
    for lang in LANGUAGES:
        assert set(lang.kinds.values()) <= {"module", "class", "function"}
        assert lang.kinds["module"] == "module"
        assert lang.prefix in LOCATOR_HEAD
    assert language_of("pkg/mod.py") is not None
    assert language_of("main.c") is None and language_of("Makefile") is None


def test_a_row_says_which_paths_are_its_and_whether_it_reparses_edits() -> None:
    assert PYTHON.reads("src/pkg/mod.py") and not PYTHON.reads("mod.pyi")
    assert RUST.reads("src/lib.rs") and not RUST.reads("lib.rs.orig")
    assert [lang.name for lang in LANGUAGES if lang.incremental] == ["python"]
    before = b"def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    after = before.replace(b"return 2", b"return 3")
    old, whole = parse_entities(before), parse_entities(after)
    hunks, lines = hunks_and_lines(before, after, split_lines(before))
    assert old is not None and whole is not None and lines is not None
    assert PYTHON.reparse is not None
    new, windows = PYTHON.reparse(old, after, lines, hunks)
    assert new is not None and new.entities == whole.entities
    assert windows is not None  # the edited statement alone was read again


def test_locators_describe_their_language() -> None:
    assert describe_locator("python:function:a.f") == ("python", "function")
    assert describe_locator("rust:macro:demo.square") == ("rust", "macro")
    assert describe_locator("core:file:src/lib.rs") == ("rust", "file")
    assert describe_locator("core:file:main.c") == (None, "file")
    assert describe_locator("elsewhere:thing:x") == (None, None)


def test_answers_carry_language_and_language_kind(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": "pub struct S;\n",
                 "tool/run.py": "def main():\n    return 1\n", "native/x.c": "int x;\n"})
    repo.commit({"src/lib.rs": "pub struct S;\n\nimpl S {\n    pub fn go(&self) {}\n}\n",
                 "tool/run.py": "def main():\n    return 2\n", "native/x.c": "int y;\n"})
    env = _call("changed", repo=str(repo.path), rev_range="HEAD~1..HEAD")
    entities = {i["entity"]["locator"]: i["entity"] for i in env["data"]["items"]}
    impl = entities["rust:impl:demo_crate.S.impl#<>"]
    assert (impl["kind"], impl["language"], impl["language_kind"]) == ("class", "rust", "impl")
    method = entities["rust:function:demo_crate.S.impl#<>.go"]
    assert (method["kind"], method["language_kind"]) == ("function", "function")
    main = entities["python:function:tool.run.main"]
    assert (main["language"], main["language_kind"]) == ("python", "function")
    c_file = entities["core:file:native/x.c"]
    assert (c_file["kind"], c_file["language"], c_file["language_kind"]) == (
        "file", None, "file")
    assert entities["core:file:src/lib.rs"]["language"] == "rust"

    churn = _call("churn", repo=str(repo.path),
                  entity_refs=["rust:impl:demo_crate.S.impl#<>", "rust:struct:demo_crate.Gone"],
                  sort_by="locator", sort_order="asc")
    items = churn["data"]["items"]
    assert items[0]["entity"]["language_kind"] == "impl"
    assert items[0]["churn_count"] == 1
    assert items[1]["entity"]["language_kind"] == "struct" and not items[1]["observed"]

    timeline = _call("timeline", repo=str(repo.path), entity="rust:struct:demo_crate.S")
    assert timeline["data"]["entity"]["language"] == "rust"
    by_name = _call("timeline", repo=str(repo.path),
                    entity_ref={"kind": "qualname", "value": "demo_crate.S"})
    assert by_name["data"]["entity"]["locator"] == "rust:struct:demo_crate.S"
    assert [e["change_kind"] for e in timeline["data"]["items"]] == ["added"]


def test_changed_says_which_files_were_read_only_as_files(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"native/x.c": "int x;\n", "app/run.py": "X = 1\n", "README.md": "a\n"})
    repo.commit({"native/x.c": "int y;\n", "native/y.h": "int z;\n",
                 "app/run.py": "X = 2\n", "README.md": "b\n"})
    env = _call("changed", repo=str(repo.path), rev_range="HEAD~1..HEAD")
    notes = [w for w in env["warnings"] if "only as files" in w]
    assert len(notes) == 1
    assert "C: native/x.c, native/y.h" in notes[0] and "README" not in notes[0]
    clean = _call("changed", repo=str(repo.path), rev_range="HEAD~1..HEAD",
                  filters={"paths": ["app/"]})
    assert not [w for w in clean["warnings"] if "only as files" in w]
