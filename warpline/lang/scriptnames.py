"""TypeScript/JavaScript names: what one capture names (``name_of``) and the qualnames of
a file's definitions (``qualify``), one entity per definition (``docs/languages.md``).

A capture reads as an entity ``(kind, name, flag)`` (flag ``sig`` for an overload or
ambient signature, ``get``/``set`` for an accessor, else empty), a naming *scope*
``("", name, "")`` (a binding, key or member whose value is an object literal, a call or
another expression holding definitions: not an entity, its definitions are named through
it), or None (its definitions are named through whatever encloses it: an anonymous
callback, ``this.x =``, ``module.exports = {…}``).

Qualnames are given in source order. A definition whose qualname an earlier one of the
file already has is the next of its name, ``name~2``, ``name~3``… (``~`` is in no
identifier; string keys escape it), except the members of one overload group (adjacent
signatures of one name, then at most one implementation) and a getter with its setter,
which share one entity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from warpline.lang.tsdefs import Def

__all__ = ["Names", "member_name", "name_of", "owner", "qualify", "unwrap"]

_ROLE_KIND = {"function": "function", "class": "class", "method": "method",
              "binding": "function", "assignment": "function", "default": "function",
              "property": "method", "field": "method", "named": "function",
              "interface": "interface", "type": "type", "enum": "enum",
              "namespace": "namespace"}
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "generator_function",
                        "function"})
_CLASSES = frozenset({"class", "class_declaration"})
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression",
                       "non_null_expression", "type_assertion"})
_SIGNATURES = frozenset({"function_signature", "method_signature",
                         "abstract_method_signature"})
# Where a named function or class expression is already the value of a definition.
_VALUE_OF = {"variable_declarator": "value", "assignment_expression": "right",
             "export_statement": "value", "pair": "value", "field_definition": "value",
             "public_field_definition": "value"}
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$-#@[]")

Named = tuple[str, str, str] | None


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def unwrap(node: Any) -> Any:
    """A value without its parentheses and type assertions (``(f) as any`` -> ``f``)."""
    while node is not None and node.type in _WRAPPERS:
        inner = [child for child in node.named_children if child.type != "comment"]
        if not inner:
            return node
        node = inner[-1] if node.type == "type_assertion" else inner[0]
    return node


def owner(node: Any) -> Any | None:
    """The binding, member, key or export whose value ``node`` is (through wrappers)."""
    child, parent = node, node.parent
    while parent is not None and parent.type in _WRAPPERS:
        child, parent = parent, parent.parent
    if parent is None:
        return None
    field = _VALUE_OF.get(parent.type)
    if field is None:
        return None
    value = parent.child_by_field_name(field)
    return parent if value is not None and value.id == child.id else None


def _key_name(node: Any) -> str | None:
    """A property or method key as a name segment: identifiers as written, string and
    number keys, and a computed method name's text without whitespace
    (``[Symbol.iterator]``), with every character outside ``[A-Za-z0-9_$#@[]-]``
    percent-escaped (a ``.`` or ``~`` would read as nesting or an ordinal)."""
    if node is None:
        return None
    if node.type == "string":
        raw = "".join(_text(child) for child in node.named_children)
    elif node.type == "computed_property_name":
        raw = "".join(_text(node).split())
    elif node.type in ("property_identifier", "private_property_identifier", "number",
                       "identifier", "type_identifier"):
        raw = _text(node)
    else:
        return None
    if not raw:
        return None
    return "".join(ch if ch in _SAFE else "".join(f"%{b:02X}" for b in ch.encode())
                   for ch in raw)


def _value_kind(value: Any, role: str) -> str | None:
    """The entity kind a value makes of its binding (None: a naming scope)."""
    inner = unwrap(value)
    if inner is None:
        return None
    if inner.type in _CLASSES:
        return "class"
    if inner.type in _FUNCTIONS:
        return _ROLE_KIND[role]
    return None


def name_of(node: Any, role: str) -> Named:
    """What the definition node ``node`` (inside the statement it stands in) names."""
    if role == "default":
        kind = _value_kind(node.child_by_field_name("value"), role)
        return (kind, "default", "") if kind else ("", "default", "")
    if role == "assignment":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        name = member_name(_text(left)) if left is not None else None
        kind = _value_kind(right, role)
        if name is None or kind is not None:
            return (kind, name, "") if name and kind else None
        if name.endswith(".prototype"):
            return ("", name.removesuffix(".prototype"), "")  # Foo.prototype = {…}
        literal = unwrap(right)
        if name == "default" and literal is not None and literal.type == "object":
            return None  # module.exports = {…}: its members are the module's, as exports.f
        return ("", name, "")
    if role == "binding":
        name_node = node.child_by_field_name("name")
        kind = _value_kind(node.child_by_field_name("value"), role)
        return (kind or "", _text(name_node), "")
    if role in ("property", "field"):
        key = node.child_by_field_name("key") if role == "property" else (
            node.child_by_field_name("name") or node.child_by_field_name("property"))
        name = _key_name(key)
        if name is None:
            return None
        kind = _value_kind(node.child_by_field_name("value"), role)
        return (kind or "", name, "")
    if role == "named":
        if owner(node) is not None:
            return None  # the value of a binding, member or key: named by it
        kind = "class" if node.type in _CLASSES else "function"
        return (kind, _text(node.child_by_field_name("name")), "")
    kind = _ROLE_KIND[role]
    name_node = node.child_by_field_name("name")
    if name_node is None:
        if node.type in _CLASSES or role == "class":
            return (kind, "default", "")
        return None
    flag = "sig" if node.type in _SIGNATURES else ""
    key = _key_name(name_node) if role == "method" else _text(name_node)
    if key is None:
        return None
    if role == "method" and not flag:
        for child in node.children:
            if child.id == name_node.id:
                break
            if child.type in ("get", "set"):
                flag = child.type
    return (kind, key, flag)


def member_name(left: str) -> str | None:
    """``exports.f`` -> ``f``, ``module.exports`` -> ``default``, ``X.prototype.m`` ->
    ``X.m``; ``this.x`` and computed members are not names."""
    left = "".join(left.split())
    if left in ("module.exports", "exports"):
        return "default"
    for head in ("module.exports.", "exports."):
        if left.startswith(head):
            left = left[len(head):]
            break
    if left.startswith("this.") or "[" in left or "(" in left or left == "this":
        return None
    return left.replace(".prototype.", ".")


class Names:
    """The qualnames given so far in one file (each base qualname's occurrences)."""

    __slots__ = ("grouped", "spans", "taken")

    def __init__(self) -> None:
        self.taken: dict[tuple[str, str], int] = {}
        self.grouped: set[tuple[str, str]] = set()  # keys of overload groups, get/set pairs
        # each definition's bytes and qualname, in source order (the edges' owners)
        self.spans: list[tuple[int, int, tuple[str, str]]] = []

    def give(self, kind: str, base: str) -> str:
        count = self.taken.get((kind, base), 0) + 1
        self.taken[(kind, base)] = count
        return base if count == 1 else f"{base}~{count}"


def qualify(entries: Sequence[tuple[Any, list[Any]]], prefix: str = "",
            names: Names | None = None) -> list[Def]:
    """Nested records (``tsdefs.nest_records``; ``data`` from ``name_of``) -> ``Def``s
    with one qualname per definition (the module docstring's rule)."""
    names = names if names is not None else Names()
    out: list[Def] = []
    last: tuple[tuple[str, str], str, str] | None = None  # previous entity: key, qual, flag
    accessors: dict[tuple[str, str], tuple[str, str]] = {}  # key -> (qualname, flag)
    for rec, children in entries:
        named = rec.data
        if named is None or not named[0]:
            last = None
            scope = prefix if named is None else prefix + named[1] + "."  # a naming scope
            out.extend(qualify(children, scope, names))
            continue
        kind, name, flag = named
        key = (kind, prefix + name)
        if last is not None and last[0] == key and last[2] == "sig":
            qualname = last[1]  # the next member of an overload group
            names.grouped.add((kind, qualname))
        elif flag in ("get", "set") and key in accessors and accessors[key][1] not in (
                flag, ""):
            qualname = accessors.pop(key)[0]  # a getter's setter (or the reverse)
            accessors[key] = (qualname, "")
            names.grouped.add((kind, qualname))
        else:
            qualname = names.give(kind, prefix + name)
            if flag in ("get", "set"):
                accessors[key] = (qualname, flag)
        last = (key, qualname, flag)
        names.spans.append((rec.start, rec.end, (kind, qualname)))
        out.append(Def((kind, qualname), rec.first, rec.last,
                       qualify(children, qualname + ".", names)))
    return out
