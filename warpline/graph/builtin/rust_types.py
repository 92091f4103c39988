"""Pass 2 of Rust's built-in edges, its other half: the types of expressions, as far as
they are written.

``self``, parameters, ``let x: T``, ``let x = T::new()`` (a function's declared return
type, ``Self`` included; a derived ``T::default()``), struct literals, fields of known
structs (a field typed by the struct's type parameter takes the bounds of the impl around
the use), ``?``/``unwrap``/``expect`` of ``Result`` and ``Option``, the contents of
``RefCell``/``Mutex``, ``clone``, a block's last expression, names bound by patterns (a
``match`` arm's or ``if let``'s tuple variant, a ``for`` loop's element, a destructured
tuple); ``Box``/``Rc``/``Arc`` and references seen through; generic parameters and
``dyn``/``impl Trait`` as their trait bounds. ``TypeReader`` is mixed into
``rust_resolve.Resolver``, whose tables and path resolution it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from warpline.graph.builtin.rust_scan import Ctx, segments, text

if TYPE_CHECKING:
    from warpline.graph.builtin.rust_resolve import Impl

__all__ = ["Ty", "TypeReader"]

_TRANSPARENT = frozenset({"Box", "Rc", "Arc", "Cow", "RefMut", "Ref", "MutexGuard"})
_UNWRAP = frozenset({"Result", "Option", "RefCell", "Cell", "Mutex", "RwLock"})
# Methods of those wrappers giving their content (``RefCell::borrow_mut``, ``Mutex::lock``).
_INNER = frozenset({"borrow", "borrow_mut", "into_inner", "get_mut", "lock", "read",
                    "write", "as_ref", "as_mut", "as_deref", "as_deref_mut"})
_UNWRAPPING = frozenset({"unwrap", "expect", "unwrap_or_default", "unwrap_or",
                         "unwrap_or_else", "unwrap_unchecked"})
_MAX_DEPTH = 8
_SAME = frozenset({"clone", "to_owned", "by_ref", "iter", "iter_mut", "into_iter"})
# Collections whose first type argument is what iterating them gives (``for x in &v``).
_ELEMENTS = frozenset({"Vec", "VecDeque", "HashSet", "BTreeSet", "Option", "BinaryHeap"})


@dataclass(frozen=True, slots=True)
class Ty:
    """A type as far as it is known: a concrete definition (``locator``), or the traits a
    value is only known to implement (``traits``)."""

    locator: str | None = None
    traits: tuple[str, ...] = ()


class TypeReader:
    """The type half of the resolver (its tables are the resolver's)."""

    kinds: dict[str, str]
    fns: dict[str, Ctx]
    fields: dict[str, tuple[Ctx, dict[str, Any]]]
    aliases: dict[str, tuple[Ctx, Any]]
    variants: dict[str, tuple[Ctx, dict[str, list[Any]]]]
    traits: dict[str, dict[str, str]]
    implementors: dict[str, list[Impl]]

    def resolve(self, segs: list[str], module: str, ctx: Ctx | None,
                depth: int = 0) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        raise NotImplementedError

    def associated(self, target: str, name: str) -> list[str]:
        raise NotImplementedError

    def self_type(self, impl: Ctx) -> Ty:
        if impl.kind == "trait":
            return Ty(traits=(impl.trait_locator,)) if impl.trait_locator else Ty()
        return self.type_ref(impl.self_type, impl) if impl.self_type is not None else Ty()

    def type_ref(self, node: Any, ctx: Ctx, depth: int = 0) -> Ty:
        """The type a type node written in ``ctx`` names."""
        if node is None or depth > _MAX_DEPTH:
            return Ty()
        kind = node.type
        if kind in ("reference_type", "pointer_type"):
            return self.type_ref(node.child_by_field_name("type"), ctx, depth + 1)
        if kind == "generic_type":
            base = node.child_by_field_name("type")
            name = segments(text(base))[-1] if base is not None else ""
            if name in _TRANSPARENT:
                args = node.child_by_field_name("type_arguments")
                inner = next((a for a in args.named_children if a.type != "lifetime"),
                             None) if args is not None else None
                return self.type_ref(inner, ctx, depth + 1)
            return self.type_ref(base, ctx, depth + 1)
        if kind in ("dynamic_type", "abstract_type"):
            trait = node.child_by_field_name("trait")
            return self._traits([trait] if trait is not None else [], ctx)
        if kind == "bounded_type":
            return self._traits(list(node.named_children), ctx)
        if kind == "type_identifier":
            name = text(node)
            if name == "Self":
                impl = ctx.impl()
                return self.self_type(impl) if impl is not None else Ty()
            bounds = ctx.generic(name)
            if bounds is not None:
                return self._traits(bounds, ctx)
        if kind in ("type_identifier", "scoped_type_identifier"):
            targets, _ = self.resolve(segments(text(node)), ctx.module, ctx)
            for entity_kind, locator in targets:
                if entity_kind == "type_alias" and depth < _MAX_DEPTH:
                    alias = self.aliases.get(locator)
                    if alias is not None:
                        found = self.type_ref(alias[1], alias[0], depth + 1)
                        if found.locator or found.traits:
                            return found
                    return Ty(locator)
                if entity_kind in ("struct", "enum", "union"):
                    return Ty(locator)
                if entity_kind == "trait":
                    return Ty(locator)
        return Ty()

    def _traits(self, nodes: list[Any], ctx: Ctx) -> Ty:
        found: list[str] = []
        for node in nodes:
            ty = self.type_ref(node, ctx)
            if ty.locator and self.kinds.get(ty.locator) == "trait":
                found.append(ty.locator)
        return Ty(traits=tuple(found))

    def unwrapped(self, node: Any, ctx: Ctx) -> tuple[Any, Ctx] | None:
        """``Result<T, E>``/``Option<T>`` (or an alias of ``Result``) -> ``T``."""
        while node is not None and node.type == "reference_type":
            node = node.child_by_field_name("type")
        if node is None or node.type != "generic_type":
            return None
        base = node.child_by_field_name("type")
        if base is None or segments(text(base))[-1] not in _UNWRAP:
            return None
        args = node.child_by_field_name("type_arguments")
        first = next((a for a in args.named_children if a.type != "lifetime"), None) \
            if args is not None else None
        return (first, ctx) if first is not None else None

    def expr_type(self, expr: Any, ctx: Ctx, at: int, depth: int = 0) -> tuple[Any, Ctx] | None:
        """The type node (and where it is written) of an expression, when it is known."""
        if expr is None or depth > _MAX_DEPTH:
            return None
        kind = expr.type
        if kind in ("parenthesized_expression", "reference_expression", "unary_expression"):
            inner = expr.named_children[-1] if expr.named_children else None
            return self.expr_type(inner, ctx, at, depth + 1)
        if kind == "self":
            impl = ctx.impl()
            return (impl.self_type, impl) if impl is not None and impl.self_type is not None \
                else ("Self", ctx) if impl is not None else None
        if kind == "identifier":
            local = ctx.local(text(expr), at)
            if local is None:
                return None
            if local.typ is not None:
                return local.typ, self._fn_ctx(ctx)
            if local.value is not None:
                return self.expr_type(local.value, ctx, local.start, depth + 1)
            if local.scrutinee is not None:
                return self._variant_field(local, ctx, depth)
            return None
        if kind == "struct_expression":
            name = expr.child_by_field_name("name")
            return (name, ctx) if name is not None else None
        if kind == "field_expression":
            owner = self.expr_type(expr.child_by_field_name("value"), ctx, at, depth + 1)
            ty = self.ty(owner)
            name = expr.child_by_field_name("field")
            if ty.locator is None or name is None:
                return None
            found = self.fields.get(ty.locator)
            if found is None or text(name) not in found[1]:
                return None
            typ, where = found[1][text(name)], found[0]
            if typ is not None and typ.type == "type_identifier" \
                    and where.generic(text(typ)) is not None:
                return typ, ctx  # a type parameter: the impl around the use bounds it
            return typ, where
        if kind == "try_expression":
            inner = self.expr_type(expr.named_children[0] if expr.named_children else None,
                                   ctx, at, depth + 1)
            return self.unwrapped(*inner) if inner is not None else None
        if kind == "block":
            last = expr.named_children[-1] if expr.named_children else None
            if last is None or last.type in ("expression_statement", "let_declaration"):
                return None
            return self.expr_type(last, ctx, at, depth + 1)
        if kind == "call_expression":
            function = expr.child_by_field_name("function")
            if function is not None and function.type == "field_expression":
                name = function.child_by_field_name("field")
                if name is not None and text(name) in _SAME:
                    return self.expr_type(function.child_by_field_name("value"), ctx, at,
                                          depth + 1)
                if name is not None and text(name) in _UNWRAPPING | _INNER:
                    inner = self.expr_type(function.child_by_field_name("value"), ctx, at,
                                           depth + 1)
                    if inner is None:
                        return None
                    return self.unwrapped(*inner) or (
                        inner if text(name) in _UNWRAPPING else None)
            targets = self.callees(function, ctx, at, depth + 1)
            fns = [self.fns[t] for t in targets if t in self.fns]
            if len(fns) == 1 and fns[0].returns is not None:
                return fns[0].returns, fns[0]
            if not targets and function is not None and function.type == "scoped_identifier":
                # `T::new()`/`T::default()` of a repository type whose function is not
                # written in the repository (a derived Default): a T.
                segs = segments(text(function))
                if segs[-1] in ("new", "default") and len(segs) > 1:
                    typed, _ = self.resolve(segs[:-1], ctx.module, ctx)
                    if any(k in ("struct", "enum", "union") for k, _ in typed):
                        return function.child_by_field_name("path"), ctx
        return None

    def _variant_field(self, local: Any, ctx: Ctx, depth: int) -> tuple[Any, Ctx] | None:
        """The type of a field a variant pattern binds: ``Some(x)``/``Ok(x)`` of an
        ``Option``/``Result`` (``Err(e)``: its error type), a repository enum's variant's
        field."""
        typed = self.expr_type(local.scrutinee, ctx, local.start, depth + 1)
        if typed is None:
            return None
        node, where = typed
        while node is not None and not isinstance(node, str) \
                and node.type == "reference_type":
            node = node.child_by_field_name("type")
        if local.variant == "()":  # an element of a tuple
            if node is None or isinstance(node, str) or node.type != "tuple_type":
                return None
            elements = node.named_children
            return (elements[local.index], where) if local.index < len(elements) else None
        if local.variant == "*":  # an element of what a `for` iterates
            if node is None or isinstance(node, str):
                return None
            if node.type == "array_type":
                element = node.child_by_field_name("element")
                return (element, where) if element is not None else None
            base = node.child_by_field_name("type") if node.type == "generic_type" else None
            args = node.child_by_field_name("type_arguments") if base is not None else None
            if base is None or args is None or segments(text(base))[-1] not in _ELEMENTS:
                return None
            found = [a for a in args.named_children if a.type != "lifetime"]
            return (found[0], where) if found else None
        if local.variant in ("Some", "Ok", "Err") and node is not None \
                and not isinstance(node, str) and node.type == "generic_type":
            args = node.child_by_field_name("type_arguments")
            found = [a for a in args.named_children if a.type != "lifetime"] \
                if args is not None else []
            position = 1 if local.variant == "Err" else 0
            return (found[position], where) if len(found) > position else None
        ty = self.ty((node, where))
        variants = self.variants.get(ty.locator or "")
        if variants is None:
            return None
        fields = variants[1].get(local.variant, [])
        return (fields[local.index], variants[0]) if local.index < len(fields) else None

    def _fn_ctx(self, ctx: Ctx) -> Ctx:
        return ctx

    def ty(self, typed: tuple[Any, Ctx] | None) -> Ty:
        if typed is None:
            return Ty()
        node, ctx = typed
        if node == "Self":
            impl = ctx.impl()
            return self.self_type(impl) if impl is not None else Ty()
        return self.type_ref(node, ctx)

    def callees(self, function: Any, ctx: Ctx, at: int, depth: int = 0) -> list[str]:
        """The certain targets of a call's function expression (functions only)."""
        if function is None or depth > _MAX_DEPTH:
            return []
        kind = function.type
        if kind == "generic_function":
            return self.callees(function.child_by_field_name("function"), ctx, at, depth)
        if kind == "identifier":
            if ctx.local(text(function), at) is not None:
                return []
            targets, _ = self.resolve([text(function)], ctx.module, ctx)
        elif kind == "scoped_identifier":
            targets, _ = self.resolve(segments(text(function)), ctx.module, ctx)
        elif kind == "field_expression":
            return self.method(function, ctx, at, depth)[0]
        else:
            return []
        return [t for k, t in targets if k == "function"]

    def method(self, function: Any, ctx: Ctx, at: int,
               depth: int = 0) -> tuple[list[str], list[str]]:
        """``recv.name(...)``: the certain targets and the candidates (a trait's method
        called on a value known only by its bounds: every implementation of it)."""
        name_node = function.child_by_field_name("field")
        if name_node is None:
            return [], []
        name = text(name_node)
        ty = self.ty(self.expr_type(function.child_by_field_name("value"), ctx, at, depth))
        if ty.locator is not None:
            found = self.associated(ty.locator, name)
            if ty.locator in self.traits:
                return found, self._implementations(ty.locator, name)
            return found, []
        for trait in ty.traits:
            found = self.associated(trait, name)
            if found:
                return found, self._implementations(trait, name)
        return [], []

    def _implementations(self, trait: str, name: str) -> list[str]:
        return [m for i in self.implementors.get(trait, ()) for m in i.methods.get(name, ())]
