"""The tests a JavaScript/TypeScript test file defines, named as its runner names them.

``describe``/``it``/``test`` calls (and each runner's aliases and modifiers: ``it.only``,
``test.skip``, ``describe.concurrent``, ``test.serial``, ``xit``…) with a static name (a
string literal or a template without substitutions), nested suites giving the path. A
call whose name is computed (``test.each`` tables, a variable, a template with
substitutions) is counted as ``dynamic``: its file's tests cannot all be named, so such a
test is run through its file. Tests inside a test's body (``t.test`` subtests) run with
that test. Nothing is executed; the file is parsed with tree-sitter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpline.runners.js_literal import parse, string_value

__all__ = ["KEYWORDS", "FileTests", "JsTest", "file_tests"]

# runner -> (suite functions, test functions)
KEYWORDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "jest": (frozenset({"describe", "fdescribe", "xdescribe"}),
             frozenset({"it", "test", "fit", "xit", "xtest"})),
    "vitest": (frozenset({"describe", "suite"}), frozenset({"it", "test"})),
    "mocha": (frozenset({"describe", "context", "suite", "xdescribe", "xcontext"}),
              frozenset({"it", "specify", "test", "xit", "xspecify"})),
    "ava": (frozenset(), frozenset({"test"})),
    "node-test": (frozenset({"describe", "suite"}), frozenset({"it", "test"})),
}
# Member modifiers that keep a call a suite/test with its first argument as its name.
_MODIFIERS = frozenset({"only", "skip", "todo", "concurrent", "sequential", "serial",
                        "failing", "fails", "runIf", "skipIf", "shuffle"})
_TABLES = frozenset({"each", "for", "macro"})
_TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")


@dataclass(frozen=True, slots=True)
class JsTest:
    """One statically named test."""

    path: tuple[str, ...]  # enclosing suites' names, then the test's
    line: int  # 1-based line of the call


@dataclass(slots=True)
class FileTests:
    """A file's statically named tests, suites, and how many names are computed."""

    tests: list[JsTest] = field(default_factory=list)
    dynamic: int = 0  # suites/tests whose names are computed
    suites: set[tuple[str, ...]] = field(default_factory=set)  # static suite paths


def _callee(node: Any) -> tuple[str, list[str]] | None:
    """``describe.only.each`` -> ("describe", ["only", "each"]); None for other callees."""
    members: list[str] = []
    current = node
    while current is not None and current.type == "member_expression":
        prop = current.child_by_field_name("property")
        members.append(prop.text.decode() if prop is not None else "")
        current = current.child_by_field_name("object")
    if current is None or current.type != "identifier":
        return None
    return current.text.decode(), list(reversed(members))


def _ava_names(root: Any) -> set[str]:
    """The names AVA's test function is bound to (``import test from 'ava'``)."""
    names = {"test"}
    for node in root.named_children:
        text = node.text
        if node.type == "import_statement" and (b"'ava'" in text or b'"ava"' in text):
            clause = next((c for c in node.named_children if c.type == "import_clause"), None)
            if clause is not None:
                first = clause.named_children[0] if clause.named_children else None
                if first is not None and first.type == "identifier":
                    names.add(first.text.decode())
        elif node.type in ("lexical_declaration", "variable_declaration") and \
                (b"require('ava')" in text or b'require("ava")' in text):
            for decl in node.named_children:
                name = decl.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    names.add(name.text.decode())
    return names


def file_tests(source: bytes, runner: str, path: str) -> FileTests:
    """The tests ``source`` (the file at repo-relative ``path``) defines for ``runner``."""
    root = parse(source, typescript=path.endswith(_TS_SUFFIXES))
    suites, tests = KEYWORDS[runner]
    if runner == "ava":
        tests = frozenset(_ava_names(root))
    out = FileTests()
    _walk(root, (), suites, tests, out)
    return out


def _walk(node: Any, prefix: tuple[str, ...], suites: frozenset[str], tests: frozenset[str],
          out: FileTests) -> None:
    stack: list[tuple[Any, tuple[str, ...]]] = [(node, prefix)]
    while stack:
        current, within = stack.pop()
        if current.type == "call_expression":
            found = _test_call(current, within, suites, tests, out)
            if found is not None:
                kind, name, body = found
                if kind == "suite" and body is not None:
                    path = (*within, name) if name is not None else None
                    if path is not None:
                        out.suites.add(path)
                        stack.append((body, path))
                    else:  # a computed suite name: its tests cannot be named
                        out.dynamic += _count_tests(body, suites, tests)
                continue
        for child in reversed(current.named_children):
            stack.append((child, within))


def _test_call(node: Any, within: tuple[str, ...], suites: frozenset[str],
               tests: frozenset[str], out: FileTests) -> tuple[str, str | None, Any] | None:
    function = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if function is None or args is None:
        return None
    table = False
    callee: tuple[str, list[str]] | None
    if function.type == "call_expression":  # describe.each(table)(name, fn)
        inner = _callee(function.child_by_field_name("function"))
        if inner is None or not set(inner[1]) & _TABLES:
            return None
        callee, table = inner, True
    else:
        callee = _callee(function)
    if callee is None:
        return None
    base, members = callee
    if base not in suites and base not in tests:
        return None
    if any(m not in _MODIFIERS and m not in _TABLES for m in members):
        return None  # describe.hooks, test.before (AVA hooks), it.each-less helpers
    if set(members) & _TABLES:
        table = True
    arguments = [a for a in args.named_children if a.type != "comment"]
    name = string_value(arguments[0]) if arguments else None
    body = next((a for a in reversed(arguments)
                 if a.type in ("arrow_function", "function_expression", "function")), None)
    kind = "suite" if base in suites else "test"
    if table or name is None:
        if kind == "test":
            out.dynamic += 1
            return kind, None, None
        return kind, None, body
    if kind == "test":
        out.tests.append(JsTest((*within, name), node.start_point[0] + 1))
        return kind, name, None
    return kind, name, body


def _count_tests(node: Any, suites: frozenset[str], tests: frozenset[str]) -> int:
    found = FileTests()
    _walk(node, ("?",), suites, tests, found)
    return len(found.tests) + found.dynamic or 1
