"""What a change means in the tree-sitter rows (Rust, Go, Java, TypeScript, JavaScript):
the token stream without comments, through real git histories. A comment-only and a
whitespace-only edit are cosmetic, a token change is behavioural, a parameter change is a
signature change; Rust doc comments holding a code fence are doc tests, so code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from tests.langwalk import changes
from warpline.lang import codekey, rust, tokenkey
from warpline.lang.entities import split_lines

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


# -- the flat token walk and the versions kept by text, against their references ----------

def _reference(source: bytes, node: Any, comments: frozenset[str], code: list[str],
               docs: list[bytes]) -> None:
    """The token stream as defined (recursive, gaps read in place)."""
    if node.type in comments:
        docs.append(source[node.start_byte:node.end_byte])
        return
    if not node.children:
        code.append(source[node.start_byte:node.end_byte].decode("utf-8", "replace")
                    or f"\x00{node.type}")
        return
    verbatim = any(part in node.type for part in ("string", "char", "template", "literal",
                                                  "raw"))
    at = node.start_byte
    for child in [*node.children, None]:
        until = node.end_byte if child is None else child.start_byte
        gap = source[at:until]
        if gap.strip():
            code.append((gap if verbatim else gap.strip()).decode("utf-8", "replace"))
        if child is not None:
            _reference(source, child, comments, code, docs)
            at = child.end_byte


STREAMS = {
    "rust": [b'/// doc\nfn f(a: &str) -> String {\n    let s = "a  b"; // c\n'
             b'    let r = r#" x  y "#; let c = \'\\n\';\n    format!("{} {}", s, r)\n}\n',
             b"fn broken(a: i32 {\n    let x = ;\n}\n", b"fn bad() { let s = \"\xff\xfe\"; }\n"],
    "go": [b"package p\n\n// Doc.\nfunc F(a int) string {\n\treturn `raw  text` + \"a  b\" "
           b"/* c */\n}\n", b"package p\nfunc G( {\n"],
    "java": [b"class W{\nint m(int a) { /* c */ return a + 'x' + \"a  b\".length(); }\n}",
             b"class W{\nvoid m( { int = ; }\n}"],
    "typescript": [b"const t = `a ${b +  c}  d`; // c\nfunction f(x: number): string "
                   b"{ return 'a  b' + x; }\n", b"function g(: { return\n}\n"],
    "javascript": [b"/* c */ const re = /a  b/g;\nconst s = `x  ${ y }`;\n", b"let = ;\n"],
}


@pytest.mark.parametrize("dialect", sorted(STREAMS))
def test_the_flat_token_walk_gives_the_defined_stream(dialect: str) -> None:
    comments = tokenkey.COMMENT_TYPES[dialect]
    for source in STREAMS[dialect]:
        root = tokenkey.parser_of(dialect).parse(source).root_node
        code: list[str] = []
        docs: list[bytes] = []
        _reference(source, root, comments, code, docs)
        assert tokenkey._stream(source, root, comments) == (code, docs)


GO_VERSIONS = [
    "package calc\n\nfunc Area(w int, h int) int {\n\ts := \"a b\"\n\treturn w * h + len(s)\n}\n",
    # a reformat and a comment: cosmetic
    "package calc\n\nfunc Area(w int, h int) int {\n\t// the area\n\ts := \"a b\"\n"
    "\treturn w*h + len(s)\n}\n",
    # whitespace inside a string: the cheap forms agree, the tokens do not
    "package calc\n\nfunc Area(w int, h int) int {\n\t// the area\n\ts := \"a  b\"\n"
    "\treturn w*h + len(s)\n}\n",
    # back to the first text (its version kept by text)
    "package calc\n\nfunc Area(w int, h int) int {\n\ts := \"a b\"\n\treturn w * h + len(s)\n}\n",
    # the signature changes, the body does not
    "package calc\n\nfunc Area(w int, h int64) int {\n\ts := \"a b\"\n\treturn w * h + len(s)\n}\n",
]


def _history_facts(tmp_path: Path) -> list[tuple[bool, bool, bool] | None]:
    repo = FixtureRepo(tmp_path)
    shas = [repo.commit({"calc/calc.go": text}, f"v{n}") for n, text in enumerate(GO_VERSIONS)]
    out = []
    for sha in shas[1:]:
        found = {c.locator: c.facts for c in changes(repo, sha).changes}
        out.append(found["go:function:calc.Area"])
    return out


def test_versions_kept_by_text_answer_as_versions_read_afresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = [(True, True, False), (False, False, False), (False, False, False),
                (False, False, True)]
    tokenkey._VERSIONS.clear()
    kept = _history_facts(tmp_path / "kept")
    assert kept == expected
    assert tokenkey._VERSIONS  # the versions were kept and reused
    monkeypatch.setattr(tokenkey, "_VERSIONS_BYTES", 0)  # nothing kept: every key afresh
    monkeypatch.setattr(tokenkey, "_TREES_HELD", 0)  # and every parse dropped at once
    tokenkey._VERSIONS.clear()
    assert _history_facts(tmp_path / "afresh") == kept
    assert not tokenkey._VERSIONS


def _own_lines_reference(lines: list[bytes], entities: Any, key: Any) -> bytes:
    """Own lines as defined: line by line, each line's end cut."""
    spans = codekey.occurrences(entities, key) if key[1] else [(1, entities.line_count)]
    return b"\n".join(line.rstrip(b"\r\n") for first, last in spans
                      for line, owner in zip(lines[first - 1:last], entities.paint(first, last),
                                             strict=False) if owner == key)


OWN_SOURCES = [
    # nested definitions, a definition at the file's last line without a final newline
    b"pub struct S;\n\nimpl S {\n    /// A.\n    pub fn a(&self) -> u8 {\n        fn inner() {}\n"
    b"        1\n    }\n\n    pub fn b(&self) {}\n}\n\nmod m {\n    pub fn c() {}\n}\nfn last() {}",
    # CRLF line ends, a lone \r inside a line, two impl blocks of one type (one key twice)
    b"impl S {\r\n    fn a() {}\r\n}\r\nconst X: &str = \"a\rb\";\r\n"
    b"impl S {\r\n    fn b() {}\r\n}\r\n",
    # an unreadable tail: error recovery
    b"fn ok() {}\n\nfn broken( {\n    let x = ;\n",
]


@pytest.mark.parametrize("source", OWN_SOURCES)
def test_own_lines_by_runs_are_the_lines_read_one_by_one(source: bytes) -> None:
    entities = rust.read(source)
    assert entities is not None
    lines = split_lines(source)
    for key in sorted(entities.keys()):
        assert codekey.own_lines(lines, entities, key) == _own_lines_reference(
            lines, entities, key), key
