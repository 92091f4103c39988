"""Literal values of JavaScript/TypeScript source through tree-sitter: a string literal's
value (escapes decoded; a template without substitutions), and the object a config file
exports, as plain data (a value that is no literal is ``js_config.UNKNOWN``)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = ["exported_object", "parse", "string_value"]

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_HEX = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4}))")


@lru_cache(maxsize=2)
def _parser(typescript: bool) -> Any:
    import tree_sitter

    if typescript:
        import tree_sitter_typescript

        return tree_sitter.Parser(tree_sitter.Language(tree_sitter_typescript.language_tsx()))
    import tree_sitter_javascript

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))


def parse(source: bytes, typescript: bool) -> Any:
    """The syntax tree's root node (TypeScript read with the TSX grammar: it reads both)."""
    return _parser(typescript).parse(source).root_node


def _escape(text: str) -> str:
    body = text[1:]
    if not body:
        return ""
    match = _HEX.fullmatch(text)
    if match is not None:
        code = match.group(1) or match.group(2) or match.group(3)
        try:
            return chr(int(code, 16))
        except (ValueError, OverflowError):
            return text
    if body[0] in "\r\n":  # a line continuation
        return ""
    return _ESCAPES.get(body[0], body[0])


def string_value(node: Any) -> str | None:
    """The value of a string literal or a template string without substitutions; None
    for anything else (a name that is computed when the test runs)."""
    if node is None or node.type not in ("string", "template_string"):
        return None
    parts: list[str] = []
    for child in node.named_children:
        text = child.text.decode("utf-8", "replace")
        if child.type == "string_fragment":
            parts.append(text)
        elif child.type == "escape_sequence":
            parts.append(_escape(text))
        else:  # template_substitution, a comment
            return None
    if not node.named_children and node.type == "template_string":
        inner: str = node.text.decode("utf-8", "replace")[1:-1]
        return inner
    return "".join(parts)


def value_of(node: Any) -> Any:
    from warpline.runners.js_config import UNKNOWN

    kind = node.type
    if kind in ("string", "template_string"):
        found = string_value(node)
        return UNKNOWN if found is None else found
    if kind == "array":
        return [value_of(child) for child in node.named_children if child.type != "comment"]
    if kind == "object":
        out: dict[str, Any] = {}
        for child in node.named_children:
            if child.type == "pair":
                key_node = child.child_by_field_name("key")
                value = child.child_by_field_name("value")
                if key_node is None or value is None:
                    continue
                key = string_value(key_node) if key_node.type == "string" \
                    else key_node.text.decode("utf-8", "replace")
                if key is not None:
                    out[key] = value_of(value)
            elif child.type == "spread_element":
                out["..."] = UNKNOWN
        return out
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "number":
        try:
            return float(node.text)
        except ValueError:
            return UNKNOWN
    if kind in ("as_expression", "satisfies_expression", "parenthesized_expression"):
        first = node.named_children[0] if node.named_children else None
        return value_of(first) if first is not None else UNKNOWN
    return UNKNOWN


def _exported(node: Any) -> Any:
    """The expression a config exports, through ``defineConfig(…)``-style wrappers and
    ``satisfies``/``as``; None when it is no object literal."""
    for _ in range(4):
        if node is None:
            return None
        if node.type == "object":
            return node
        if node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            node = first
            continue
        if node.type in ("as_expression", "satisfies_expression", "parenthesized_expression"):
            node = node.named_children[0] if node.named_children else None
            continue
        return None
    return None


def exported_object(source: bytes, typescript: bool = False) -> dict[str, Any] | None:
    """The object literal a config module exports (``module.exports = …``, ``export
    default …``, or a ``const`` it names there), as plain data."""
    root = parse(source, typescript)
    bound: dict[str, Any] = {}
    exported: Any = None
    for statement in root.named_children:
        if statement.type in ("lexical_declaration", "variable_declaration"):
            for decl in statement.named_children:
                name = decl.child_by_field_name("name")
                value = decl.child_by_field_name("value")
                if name is not None and value is not None:
                    bound[name.text.decode()] = value
        elif statement.type == "export_statement":
            value = statement.child_by_field_name("value") or (
                statement.named_children[-1] if statement.named_children else None)
            if value is not None and b"default" in statement.text[:20]:
                exported = value
        elif statement.type == "expression_statement":
            expr = statement.named_children[0] if statement.named_children else None
            if expr is not None and expr.type == "assignment_expression":
                left = expr.child_by_field_name("left")
                if left is not None and left.text == b"module.exports":
                    exported = expr.child_by_field_name("right")
    if exported is not None and exported.type == "identifier":
        exported = bound.get(exported.text.decode())
    found = _exported(exported)
    if found is None:
        return None
    value = value_of(found)
    return value if isinstance(value, dict) else None
