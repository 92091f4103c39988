"""Python's reader: source -> definitions with line spans (``warpline.lang.entities``).

``parse_entities(source)`` returns a ``FileEntities`` or None when the source cannot be
read: ``ast`` first, then the error-tolerant tree-sitter fallback (``pytolerant``) for
py2-era or partly broken files. It never raises.
``warpline.lang.pyincremental`` derives a new version's ``FileEntities`` from the old one
by re-parsing only the statements a diff touched.

Rules (DESIGN §3/§4, plus the choices where the design is silent):

* Entities are the module, classes and functions (methods, async defs and nested
  functions are ``function``). Qualnames follow CPython: ``Outer.Inner.meth``,
  ``outer.<locals>.inner``; a def inside ``if``/``try``/``with``/``for``/``while``/``match``
  takes the qualname of its scope (a def inside a module-level ``if`` is just ``name``).
* A definition's span runs from its first decorator to its last statement, extended over
  trailing comment lines indented deeper than its ``def``/``class`` keyword (they read as
  the end of its body). Lambdas and comprehensions are not entities.
* Each line has one owner: the innermost definition whose span contains it, else the
  module. An entity's *own* lines are its spans minus its nested definitions' spans.
* ``@overload`` stubs (``overload``/``typing.overload``/``<anything>.overload``) are not
  entities. Their lines belong to the implementation of the same qualname when the file
  has one (an overload signature is part of that function's interface), else to the
  enclosing entity.
* Duplicate qualnames in one file (redefinition, if/else branches) are ONE entity that
  owns the lines of every occurrence.
"""

from __future__ import annotations

import ast
import warnings

from warpline.git.filecaps import MAX_ENTITIES, too_large
from warpline.lang.entities import FileEntities, line_count, module_root, no_gc, split_lines
from warpline.lang.pyscan import scan_body
from warpline.lang.pytolerant import tolerant_body

__all__ = ["PARSE_ERRORS", "parse_body", "parse_entities"]

PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def parse_entities(source: bytes, tolerant_fallback: bool = True) -> FileEntities | None:
    """Parse ``source``; when ``ast`` cannot, the error-tolerant parser
    (``warpline.lang.pytolerant``) reads what it can (unless ``tolerant_fallback`` is
    false). None when neither can, or when it is past the per-file caps
    (``warpline.git.filecaps``): never raises."""
    if too_large(source):
        return None
    lines = split_lines(source)
    with no_gc():
        body = parse_body(source)
        tolerant = body is None
        if tolerant and tolerant_fallback:
            body = tolerant_body(source)
        if body is None:
            return None
        try:
            firsts, lasts, children, counts = scan_body(body, 1, 0, "", lines)
        except RecursionError:
            return None
    if len(counts) > MAX_ENTITIES:
        return None
    return FileEntities(module_root(firsts, lasts, children, line_count(lines)), counts,
                        line_count(lines), tolerant)  # fmt: skip


def parse_body(source: bytes) -> list[ast.stmt] | None:
    """The module body of ``source``; None when it does not parse."""
    try:
        if b"\\" not in source:  # the parser warns only about escapes: skip the guard
            return ast.parse(source).body
        with warnings.catch_warnings():
            # Invalid escape sequences warn while parsing; history is full of them.
            warnings.simplefilter("ignore")
            return ast.parse(source).body
    except PARSE_ERRORS:
        return None
