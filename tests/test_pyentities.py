"""Python definitions with line spans, line ownership, and incremental re-parsing."""

from __future__ import annotations

import textwrap
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from warpline.git.hunks import hunks_between
from warpline.lang.entities import FileEntities, Node, split_lines
from warpline.lang.pyentities import parse_entities
from warpline.lang.pyincremental import reparse


def _parse(source: str) -> FileEntities:
    parsed = parse_entities(textwrap.dedent(source).encode())
    assert parsed is not None
    return parsed


def _owner(fe: FileEntities, line: int) -> str:
    entity = fe.owner_of_line(line)
    return entity.qualname or "<module>"


def _line_of(source: str, needle: str) -> int:
    lines = textwrap.dedent(source).splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


NESTED = """\
import os

CONST = 1


class Outer:
    attr = 1

    def method(self):
        def helper():
            return 1
        return helper()

    class Inner:
        async def deep(self):
            return 2


def outer():
    def inner():
        class Local:
            pass
        return Local
    return inner
"""


def test_definitions_get_cpython_qualnames_and_kinds() -> None:
    keys = _parse(NESTED).keys()
    assert keys == {
        ("module", ""),
        ("class", "Outer"),
        ("function", "Outer.method"),
        ("function", "Outer.method.<locals>.helper"),
        ("class", "Outer.Inner"),
        ("function", "Outer.Inner.deep"),
        ("function", "outer"),
        ("function", "outer.<locals>.inner"),
        ("class", "outer.<locals>.inner.<locals>.Local"),
    }


def test_each_line_belongs_to_its_innermost_definition() -> None:
    fe = _parse(NESTED)
    assert _owner(fe, _line_of(NESTED, "import os")) == "<module>"
    assert _owner(fe, _line_of(NESTED, "CONST")) == "<module>"
    assert _owner(fe, _line_of(NESTED, "attr = 1")) == "Outer"
    assert _owner(fe, _line_of(NESTED, "return helper()")) == "Outer.method"
    assert _owner(fe, _line_of(NESTED, "return 1")) == "Outer.method.<locals>.helper"
    assert _owner(fe, _line_of(NESTED, "return 2")) == "Outer.Inner.deep"
    assert _owner(fe, _line_of(NESTED, "pass")) == "outer.<locals>.inner.<locals>.Local"


def test_a_class_owns_only_its_lines_outside_its_methods() -> None:
    fe = _parse(NESTED)
    outer = fe.get("class", "Outer")
    assert outer is not None
    owned = {line for first, last in outer.own for line in range(first, last + 1)}
    assert _line_of(NESTED, "class Outer") in owned
    assert _line_of(NESTED, "attr = 1") in owned
    assert _line_of(NESTED, "return helper()") not in owned


BLOCKS = """\
import sys

if sys.version_info >= (3, 11):
    def picked():
        return 1
else:
    def picked():
        return 2

try:
    from fast import speedup
except ImportError:
    def speedup():
        return 0

with open(__file__) as fh:
    def in_with():
        pass

for _ in range(1):
    def in_for():
        pass

while False:
    def in_while():
        pass

match sys.platform:
    case "linux":
        def in_match():
            pass


class Holder:
    if True:
        def guarded(self):
            pass
"""


def test_definitions_inside_blocks_take_their_scope_qualname() -> None:
    keys = _parse(BLOCKS).keys()
    for name in ("picked", "speedup", "in_with", "in_for", "in_while", "in_match"):
        assert ("function", name) in keys
    assert ("function", "Holder.guarded") in keys


def test_a_redefined_name_is_one_entity_owning_every_occurrence() -> None:
    fe = _parse(BLOCKS)
    picked = fe.get("function", "picked")
    assert picked is not None
    assert len(picked.spans) == 2
    assert _owner(fe, _line_of(BLOCKS, "return 1")) == "picked"
    assert _owner(fe, _line_of(BLOCKS, "return 2")) == "picked"


DECORATED = """\
import functools
from typing import overload


@functools.cache
@other(
    arg=1,
)
def cached(x):
    return x


@overload
def conv(x: int) -> int: ...
@overload
def conv(x: str) -> str: ...
def conv(x):
    return x


@typing.overload
def only_stub() -> None: ...


class Api:
    @overload
    def get(self, k: int) -> int: ...
    def get(self, k):
        return k
"""


def test_a_span_starts_at_the_first_decorator() -> None:
    fe = _parse(DECORATED)
    cached = fe.get("function", "cached")
    assert cached is not None
    assert cached.spans[0][0] == _line_of(DECORATED, "@functools.cache")
    assert _owner(fe, _line_of(DECORATED, "arg=1")) == "cached"


def test_overload_stubs_are_not_entities_and_their_lines_go_to_the_implementation() -> None:
    fe = _parse(DECORATED)
    keys = fe.keys()
    assert ("function", "conv") in keys
    assert ("function", "Api.get") in keys
    assert ("function", "only_stub") not in keys
    assert fe.counts[("function", "conv")] == 1  # stubs are not occurrences
    assert _owner(fe, _line_of(DECORATED, "def conv(x: int)")) == "conv"
    assert _owner(fe, _line_of(DECORATED, "def get(self, k: int)")) == "Api.get"


def test_a_stub_without_implementation_leaves_its_lines_to_the_enclosing_entity() -> None:
    fe = _parse(DECORATED)
    assert _owner(fe, _line_of(DECORATED, "def only_stub")) == "<module>"


def test_trailing_comments_indented_into_the_body_belong_to_the_definition() -> None:
    source = """\
    def f():
        return 1
        # disabled: return 2

    # a module comment
    X = 1
    """
    fe = _parse(source)
    assert _owner(fe, _line_of(source, "# disabled")) == "f"
    assert _owner(fe, _line_of(source, "# a module comment")) == "<module>"


def test_lambdas_and_comprehensions_are_not_entities() -> None:
    fe = _parse("f = lambda x: x\nsquares = [y * y for y in range(3)]\n")
    assert fe.keys() == {("module", "")}


def test_an_empty_file_has_only_its_module() -> None:
    fe = parse_entities(b"")
    assert fe is not None
    assert fe.keys() == {("module", "")}
    assert fe.line_count == 0


def test_source_that_no_parser_can_read_gives_none_and_never_raises() -> None:
    for bad in (
        b"def broken(:\n",
        b"x = 1\x00\n",
        b"}}}} ))) ]]]\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
    ):
        assert parse_entities(bad) is None


def test_source_ast_rejects_is_read_by_the_tolerant_parser_and_never_raises() -> None:
    for bad, keys in (
        (b"x = '\xff\xfe'\n", set()),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", set()),
        (b"(" * 500 + b")" * 500, set()),
        (b"def f():\nreturn 1\n", {("function", "f")}),
        (b"print 'py2'\n\n\ndef f(x):\n    print x\n    return x\n", {("function", "f")}),
    ):
        found = parse_entities(bad)
        assert found is not None
        assert set(found.counts) == keys


def test_invalid_escape_sequences_parse_quietly() -> None:
    assert parse_entities(b"PATTERN = '\\d+'\n") is not None


# -- incremental re-parsing --------------------------------------------------------------


def _tree(node: Node) -> Any:
    return (
        node.key,
        node.off,
        node.span,
        node.stub,
        tuple(node.firsts),
        tuple(node.lasts),
        tuple(_tree(child) for child in node.children),
    )


def _check_incremental(old_text: str, new_text: str) -> None:
    old, new = old_text.encode(), new_text.encode()
    before = parse_entities(old)
    assert before is not None
    derived, _windows = reparse(before, new, split_lines(new), hunks_between(old, new))
    whole = parse_entities(new)
    assert (derived is None) == (whole is None)
    if derived is not None and whole is not None:
        assert _tree(derived.root) == _tree(whole.root)
        assert derived.counts == whole.counts
        assert derived.line_count == whole.line_count


def test_an_edit_inside_a_method_is_reparsed_locally_with_the_same_result() -> None:
    _check_incremental(NESTED, NESTED.replace("return helper()", "x = 1\n        return x"))


def test_a_new_nested_function_appears_after_an_incremental_reparse() -> None:
    new = NESTED.replace("    return inner\n", "    def extra():\n        pass\n    return inner\n")
    _check_incremental(NESTED, new)


def test_an_edit_that_breaks_the_file_gives_none_incrementally_too() -> None:
    _check_incremental(NESTED, NESTED.replace("return helper()", "return helper(("))


def test_an_edit_that_opens_a_string_over_later_code_matches_a_whole_parse() -> None:
    _check_incremental(NESTED, NESTED.replace("CONST = 1", 'CONST = """'))
    _check_incremental(NESTED, NESTED.replace("attr = 1", 'attr = """').replace("pass", '"""'))


def test_an_edit_dedented_out_of_a_method_is_reparsed_among_top_level_statements() -> None:
    # The method's region cannot take a line at the class's indentation (it would leave the
    # method's body); the class statement around it, re-parsed alone, can: still exactly
    # the whole parse, and compared as a whole file (no windows), as a whole parse is.
    new = NESTED.replace("        return helper()\n", "    extra = 2\n")
    _check_incremental(NESTED, new)
    before = parse_entities(NESTED.encode())
    assert before is not None
    derived, windows = reparse(before, new.encode(), split_lines(new.encode()),
                               hunks_between(NESTED.encode(), new.encode()))
    assert derived is not None and windows is None
    assert not derived.tolerant


def test_a_method_appended_to_a_class_above_the_next_definition_keeps_its_window() -> None:
    # The diff places the insertion after the blank lines that close the class, so the
    # module-level region starts with the new, indented method: it cannot parse alone.
    # Grown over the class above it, it does: the same tree as a whole parse, and still
    # compared within windows, not as a whole file.
    old = NESTED.replace("\n\n\ndef outer", "\n\n\n\ndef outer")
    method = "    def extra(self):\n        return 3\n"
    new = old.replace("\n\n\n\ndef outer", f"\n\n\n{method}\n\ndef outer")
    hunks = hunks_between(old.encode(), new.encode())
    assert hunks[0][0] > _line_of(old, "return 2") + 1  # the insertion follows blank lines
    _check_incremental(old, new)
    before = parse_entities(old.encode())
    assert before is not None
    derived, windows = reparse(before, new.encode(), split_lines(new.encode()), hunks)
    assert derived is not None and windows is not None
    assert ("function", "Outer.extra") in derived.counts


def test_an_edit_of_a_version_ast_rejects_still_matches_its_whole_parse() -> None:
    # py2-era code: the whole parse is the tolerant parser's, so no top-level retry is
    # spliced into it (that would be an ast reading of a file ast cannot read).
    old = NESTED.replace("CONST = 1", "print CONST")
    new = old.replace("        return helper()\n", "    extra = 2\n")
    before = parse_entities(old.encode())
    assert before is not None and before.tolerant
    _check_incremental(old, new)
    derived, _ = reparse(before, new.encode(), split_lines(new.encode()),
                         hunks_between(old.encode(), new.encode()))
    assert derived is not None and derived.tolerant


_LINES = st.sampled_from(
    [
        "x = 1",
        "    y = 2",
        "        z = 3",
        "def g():",
        "    def h():",
        "class K:",
        "    class J:",
        "@dec",
        "    @dec",
        "",
        "    # note",
        "# top note",
        "    return 0",
        "if x:",
        "    if y:",
        "else:",
        '"""',
        "    )",
        "foo(",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    position=st.integers(min_value=0, max_value=40),
    removed=st.integers(min_value=0, max_value=3),
    inserted=st.lists(_LINES, max_size=4),
    base=st.sampled_from([NESTED, BLOCKS, DECORATED]),
)
def test_incremental_reparse_equals_a_whole_parse_for_any_line_edit(
    position: int, removed: int, inserted: list[str], base: str
) -> None:
    lines = base.splitlines()
    position = min(position, len(lines))
    edited = lines[:position] + inserted + lines[position + removed :]
    _check_incremental(base, "\n".join(edited) + "\n")
