"""The scopes of Rust's built-in edges: an item's context (``Ctx``: its module, the impl
or trait around it, its generic parameters, a function's locals) and the names a
function binds (``let``, parameters, patterns of ``match``, ``if let``, ``while let``,
``for`` and closures), each with what types it, where that is written, and where its
scope ends (an arm, a loop, an ``if let``: a binding never reaches past them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Ctx", "Local", "bind", "let", "names", "segments", "text", "variant_bindings"]


def text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def segments(path_text: str) -> list[str]:
    """``crate::a::Foo::<T>::new`` -> ``["crate", "a", "Foo", "new"]``: generic arguments
    and whitespace dropped; a leading ``::`` kept as an empty first segment."""
    out: list[str] = []
    depth = 0
    buf: list[str] = []
    for ch in path_text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0 and not ch.isspace():
            buf.append(ch)
    return [*out, *"".join(buf).split("::")]


@dataclass(slots=True)
class Local:
    """A name bound inside a function: its declared type node, or the value it was bound
    to (``let x = T::new()``); both None for a binding whose type we do not follow (a
    pattern of ``match``, ``if let``, ``for``, a closure's parameter)."""

    start: int
    typ: Any = None
    value: Any = None
    # A tuple variant's field bound by a pattern (``Some(x)``, ``Kind::A(ref x)``) of a
    # ``match``/``if let`` over ``scrutinee``: the variant's name and the field's position.
    scrutinee: Any = None
    variant: str = ""
    index: int = 0
    end: int = 1 << 62  # a pattern's binding: the end of the arm, loop or `if` it binds in


@dataclass(slots=True)
class Ctx:
    """The context of an item: its module, the impl or trait around it, its generic
    parameters (name -> bound trait paths) and, for a function, its parameters and
    locals."""

    module: str
    start: int
    end: int
    kind: str  # mod impl trait fn type
    parent: Ctx | None = None
    self_type: Any = None  # an impl's self type node (a trait: None)
    trait: Any = None  # an impl's trait node
    trait_locator: str | None = None  # inside a trait: the trait's locator
    generics: dict[str, list[Any]] = field(default_factory=dict)
    locals: dict[str, list[Local]] = field(default_factory=dict)
    returns: Any = None
    locator: str | None = None
    fn_locator: str | None = None  # the function entity (locals live there)

    def generic(self, name: str) -> list[Any] | None:
        ctx: Ctx | None = self
        while ctx is not None:
            if name in ctx.generics:
                return ctx.generics[name]
            ctx = ctx.parent
        return None

    def impl(self) -> Ctx | None:
        ctx: Ctx | None = self
        while ctx is not None:
            if ctx.kind in ("impl", "trait"):
                return ctx
            ctx = ctx.parent
        return None

    def local(self, name: str, at: int) -> Local | None:
        ctx: Ctx | None = self
        while ctx is not None and ctx.kind == "fn":
            found = None
            for decl in ctx.locals.get(name, ()):
                if decl.start <= at < decl.end:
                    found = decl
            if found is not None:
                return found
            ctx = ctx.parent
        return None


def names(pattern: Any) -> list[str]:
    """The identifiers a (small) pattern binds."""
    if pattern.type == "identifier":
        return [text(pattern)]
    out: list[str] = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        named = node.child_by_field_name("type") if node.type in (
            "tuple_struct_pattern", "struct_pattern") else None
        for child in node.named_children:
            if child == named or node.type == "scoped_identifier":
                continue  # `Some` of `Some(x)`: the variant, not a binding
            if child.type == "identifier":
                out.append(text(child))
            elif child.type not in ("scoped_identifier", "type_identifier",
                                    "field_identifier"):
                stack.append(child)
    return out


def variant_bindings(pattern: Any) -> dict[str, Local]:
    """``Some(x)``/``Kind::A(ref x, _)`` as the pattern of a ``match`` arm or an ``if let``:
    each field bound by a plain name, with the scrutinee and the variant to type it by."""
    parent = pattern.parent
    if parent is not None and parent.type == "for_expression":
        bound = pattern.named_children[-1] if pattern.type in ("ref_pattern", "mut_pattern") \
            and pattern.named_children else pattern
        value = parent.child_by_field_name("value")
        if bound.type != "identifier" or value is None:
            return {}
        return {text(bound): Local(pattern.start_byte, scrutinee=value, variant="*")}
    if pattern.type == "match_pattern":
        scrutinee = parent.parent.parent.child_by_field_name("value") \
            if parent is not None and parent.parent is not None \
            and parent.parent.parent is not None else None
        inner = pattern.named_children[0] if pattern.named_children else None
    else:
        scrutinee = parent.child_by_field_name("value") if parent is not None else None
        inner = pattern
    if scrutinee is None or inner is None or inner.type != "tuple_struct_pattern":
        return {}
    variant = inner.child_by_field_name("type")
    if variant is None:
        return {}
    out: dict[str, Local] = {}
    fields = [c for c in inner.named_children if c != variant]
    for index, field_pattern in enumerate(fields):
        bound = field_pattern
        if bound.type in ("ref_pattern", "mut_pattern") and bound.named_children:
            bound = bound.named_children[-1]
        if bound.type == "identifier":
            out[text(bound)] = Local(pattern.start_byte, scrutinee=scrutinee,
                                     variant=segments(text(variant))[-1], index=index)
    return out


def bind(ctx: Ctx, name: str, local: Local) -> None:
    if ctx.kind == "fn":
        ctx.locals.setdefault(name, []).append(local)


def let(ctx: Ctx, node: Any) -> None:
    pattern = node.child_by_field_name("pattern")
    if pattern is None:
        return
    typ = node.child_by_field_name("type")
    value = node.child_by_field_name("value")
    if pattern.type == "identifier" or (pattern.type == "mut_pattern"):
        found = names(pattern)
        for name in found[:1]:
            bind(ctx, name, Local(node.end_byte, typ, value))
        return
    if pattern.type == "tuple_pattern" and value is not None and typ is None:
        # `let (a, b) = f();`: each name is its element of the value's tuple type.
        for index, element in enumerate(pattern.named_children):
            bound = element.named_children[-1] if element.type in (
                "ref_pattern", "mut_pattern") and element.named_children else element
            if bound.type == "identifier":
                bind(ctx, text(bound), Local(node.end_byte, scrutinee=value, variant="()",
                                              index=index))
        return
    for name in names(pattern):
        bind(ctx, name, Local(node.end_byte))
