"""What a change means in the tree-sitter rows (Rust, Go, Java, TypeScript, JavaScript):
the token stream without comments, through real git histories. A comment-only and a
whitespace-only edit are cosmetic, a token change is behavioural, a parameter change is a
signature change; Rust doc comments holding a code fence are doc tests, so code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from tests.langwalk import changes

CARGO = '[package]\nname = "demo"\n'
# (path, base source, the function's locator, comment edit, whitespace edit, token edit,
#  parameter edit): each edit is (old, new) applied to the base.
CASES = {
    "rust": ("src/lib.rs",
             "pub fn area(w: i32, h: i32) -> i32 {\n    // width by height\n    w * h\n}\n",
             "rust:function:demo.area",
             ("// width by height", "// the area"), ("    w * h", "    w*h"),
             ("w * h", "w + h"), ("h: i32)", "h: i64)")),
    "go": ("calc/calc.go",
           "package calc\n\nfunc Area(w int, h int) int {\n\t// width by height\n"
           "\treturn w * h\n}\n",
           "go:function:calc.Area",
           ("// width by height", "/* the area */"), ("return w * h", "return w *\n\t\th"),
           ("w * h", "w - h"), ("h int)", "h int64)")),
    "java": ("src/main/java/demo/Calc.java",
             "package demo;\n\npublic class Calc {\n    public int area(int w, int h) {\n"
             "        // width by height\n        return w * h;\n    }\n}\n",
             "java:method:demo.Calc.area(int,int)",
             ("// width by height", "/* the area */"), ("return w * h;", "return   w*h ;"),
             ("w * h", "h * w"), ("int h)", "int h, int d)")),
    "typescript": ("src/calc.ts",
                   "export class Calc {\n  area(w: number, h: number): number {\n"
                   "    // width by height\n    return w * h;\n  }\n}\n",
                   "ts:method:src/calc.Calc.area",
                   ("// width by height", "// the area"), ("return w * h;", "return w *\n      h;"),
                   ("w * h", "w * h * 1"), ("h: number)", "h: string)")),
    "javascript": ("lib/calc.js",
                   "function area(w, h) {\n  // width by height\n  return w * h;\n}\n"
                   "module.exports = { area };\n",
                   "ts:function:lib/calc.area",
                   ("// width by height", "/* the area */"), ("  return w * h;", "return w*h;"),
                   ("w * h", "w ** h"), ("(w, h)", "(w, h, d)")),
}


def _facts(tmp_path: Path, language: str, edit: tuple[str, str]
           ) -> tuple[bool, bool, bool] | None:
    path, base, locator = CASES[language][:3]
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({path: base, "Cargo.toml": CARGO}, "base")
    old, new = edit
    assert old in base
    sha = repo.commit({path: base.replace(old, new)}, "edit")
    found = {c.locator: (c.change_kind, c.facts) for c in changes(repo, sha).changes}
    assert found[locator][0] == "modified", found
    return found[locator][1]


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_comment_only_edit_is_cosmetic(tmp_path: Path, language: str) -> None:
    assert _facts(tmp_path, language, CASES[language][3]) == (True, True, False)


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_whitespace_only_edit_is_cosmetic(tmp_path: Path, language: str) -> None:
    assert _facts(tmp_path, language, CASES[language][4]) == (True, False, False)


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_token_change_is_behavioural(tmp_path: Path, language: str) -> None:
    assert _facts(tmp_path, language, CASES[language][5]) == (False, False, False)


# Java's overloads are named by their parameter types: a parameter change moves the method
# (its own test below).
@pytest.mark.parametrize("language", sorted(set(CASES) - {"java"}))
def test_a_parameter_change_is_a_signature_change(tmp_path: Path, language: str) -> None:
    found = _facts(tmp_path, language, CASES[language][6])
    assert found is not None and (found[0], found[2]) == (False, True)


def test_a_java_parameter_type_change_is_a_signature_change(tmp_path: Path) -> None:
    path = "src/main/java/demo/Calc.java"
    base = ("package demo;\n\npublic class Calc {\n    public int area(int w) {\n"
            "        int a = w * w;\n        int b = a + 1;\n        int c = b * 2;\n"
            "        return c;\n    }\n}\n")
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({path: base}, "base")
    sha = repo.commit({path: base.replace("area(int w)", "area(long w)")}, "edit")
    found = {c.locator: c for c in changes(repo, sha).changes if c.kind == "function"}
    (change,) = found.values()
    assert change.change_kind == "moved" and change.facts is not None
    assert change.facts[2] is True


def test_a_rust_doc_test_edit_is_code(tmp_path: Path) -> None:
    path = "src/lib.rs"
    base = ("/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 4);\n/// ```\n"
            "pub fn double(x: i32) -> i32 {\n    x * 2\n}\n\n/// Halves.\n"
            "pub fn half(x: i32) -> i32 {\n    x / 2\n}\n")
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({path: base, "Cargo.toml": CARGO}, "base")
    sha = repo.commit({path: base.replace("double(2), 4", "double(3), 6").replace(
        "/// Halves.", "/// Halves it.")}, "docs")
    found = {c.locator: c.facts for c in changes(repo, sha).changes}
    assert found["rust:function:demo.double"] == (False, False, False)  # a doc test: code
    assert found["rust:function:demo.half"] == (True, True, False)  # prose: cosmetic
