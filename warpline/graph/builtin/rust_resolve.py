"""Pass 2 of Rust's built-in edges: names to definitions across a commit's crates.

* Modules: each file's module is the Rust row's (``warpline.lang.rust.module_name``);
  ``mod x;`` links a file to its child (``x.rs`` or ``x/mod.rs`` beside a ``mod.rs``,
  ``lib.rs``, ``main.rs`` or a crate root, else under the file's own directory; a
  ``#[path]`` attribute wins); a file no ``mod`` reaches is a crate root. Inline
  ``mod x { }`` nests.
* Paths: ``crate::``, ``self::``, ``super::``, ``Self::``, a name of the module (its items,
  its ``use``s, re-exports followed, ``*`` imports), a workspace crate by its library's
  name. What resolves to nothing in the commit is outside it (std, dependencies).
* Associated items by the self type of every ``impl`` (inherent impls first, then trait
  impls, then the traits' default methods); a trait's own items by the trait.
* Types of expressions, as far as they are written: ``self``, parameters, ``let x: T``,
  ``let x = T::new()`` (a function's declared return type, ``Self`` included), struct
  literals, fields of known structs, ``?``/``unwrap``/``expect`` of ``Result`` and
  ``Option``, ``Box``/``Rc``/``Arc`` and references seen through; generic parameters and
  ``dyn``/``impl Trait`` as their trait bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpline.graph.builtin.rust_scan import Ctx, FileScan, Use, segments, text
from warpline.lang import RUST

__all__ = ["Mod", "Resolver", "Ty"]

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


@dataclass(slots=True)
class Mod:
    id: str
    root: str = ""
    parent: str | None = None
    items: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # name -> kind, loc
    uses: dict[str, list[Use]] = field(default_factory=dict)
    globs: list[Use] = field(default_factory=list)
    children: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Impl:
    ctx: Ctx
    trait: str | None
    methods: dict[str, list[str]]


class Resolver:
    def __init__(self, scans: list[FileScan], crates: dict[str, str]) -> None:
        """``crates``: a workspace crate's library name -> its root module."""
        self.scans = scans
        self.crates = crates
        self.mods: dict[str, Mod] = {}
        self.by_path = {scan.path: scan for scan in scans}
        self.kinds: dict[str, str] = {}  # locator -> entity kind
        self.fns: dict[str, Ctx] = {}
        self.fields: dict[str, tuple[Ctx, dict[str, Any]]] = {}
        self.aliases: dict[str, tuple[Ctx, Any]] = {}
        self.variants: dict[str, tuple[Ctx, dict[str, list[Any]]]] = {}
        self.traits: dict[str, dict[str, str]] = {}
        self.impls: dict[str, list[Impl]] = {}  # self type locator -> impls
        self.implementors: dict[str, list[Impl]] = {}  # trait locator -> impls
        self.methods_named: dict[str, list[str]] = {}
        self.macros: dict[str, list[str]] = {}
        # A function's nested items (``f.~fn.NAME``): function locator -> name -> targets.
        self.nested: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self.value_names: set[str] = set()
        self.module_of: dict[str, str] = {}
        self.external_impls: list[tuple[str, list[str]]] = []
        self._memo: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._declared: set[tuple[str, str]] | None = None
        self._build()

    # -- the module tree and the tables ---------------------------------------------------
    def _build(self) -> None:
        reached: set[str] = set()
        for scan in self.scans:
            mod = self.mods.setdefault(scan.module, Mod(scan.module))
            for parent, child in scan.inline_mods:
                self.mods.setdefault(child, Mod(child, parent=parent))
                self.mods.setdefault(parent, Mod(parent)).children[child.rsplit(".", 1)[-1]] \
                    = child
            for decl in scan.mods:
                target = self._child_file(scan, decl.name, decl.path)
                if target is None:
                    continue
                reached.add(target.path)
                linked = self.mods.setdefault(target.module, Mod(target.module))
                linked.parent = decl.module
                self.mods.setdefault(decl.module, Mod(decl.module)).children[decl.name] = \
                    target.module
            for module, name, kind, qualname in scan.items:
                locator = RUST.locator((kind, qualname), scan.module)
                self.mods.setdefault(module, Mod(module)).items.setdefault(name, []).append(
                    (kind, locator))
                if kind == "macro":
                    self.macros.setdefault(name, []).append(locator)
            for use in scan.uses:
                target_mod = self.mods.setdefault(use.module, Mod(use.module))
                if use.glob:
                    target_mod.globs.append(use)
                else:
                    target_mod.uses.setdefault(use.name, []).append(use)
            for key, fn in scan.fns.items():
                self.fns[RUST.locator(key, scan.module)] = fn
            for key, found in scan.fields.items():
                self.fields[RUST.locator(key, scan.module)] = found
            for key, alias in scan.aliases.items():
                self.aliases[RUST.locator(key, scan.module)] = alias
            for key, variants in scan.variants.items():
                self.variants[RUST.locator(key, scan.module)] = variants
            for key, methods in scan.traits.items():
                self.traits[RUST.locator(key, scan.module)] = {
                    n: RUST.locator(k, scan.module) for n, k in methods.items()}
            for entity in scan.defs.entities:
                locator = RUST.locator(entity.key, scan.module)
                self.kinds[locator] = entity.kind
                self.module_of[locator] = scan.module
                if ".~fn." in entity.qualname:
                    outer, _, name = entity.qualname.rpartition(".~fn.")
                    if "." in name:
                        continue
                    holder = RUST.locator(("function", outer), scan.module)
                    self.nested.setdefault(holder, {}).setdefault(
                        name.split("@", 1)[0], []).append((entity.kind, locator))
                if entity.kind in ("const", "static", "function") and "." not in \
                        entity.qualname.replace(".~fn.", ""):
                    self.value_names.add(entity.qualname.rsplit(".", 1)[-1].split("@", 1)[0])
            del mod
        for scan in self.scans:
            if scan.path not in reached:
                self._set_root(scan.module, scan.module)
        for scan in self.scans:
            for ctx, impl_methods in scan.impls:
                self._add_impl(scan, ctx, impl_methods)

    def _set_root(self, module: str, root: str) -> None:
        stack = [module]
        while stack:
            current = self.mods.setdefault(stack.pop(), Mod(module))
            if current.root:
                continue
            current.root = root
            stack.extend(current.children.values())

    def _child_file(self, scan: FileScan, name: str, attr: str | None) -> FileScan | None:
        directory, _, filename = scan.path.rpartition("/")
        base = f"{directory}/" if directory else ""
        if attr is not None:
            return self.by_path.get(base + attr)
        stem = filename[:-3]
        owns_dir = stem in ("mod", "lib", "main") or not self._is_child(scan)
        here = base if owns_dir else f"{base}{stem}/"
        return self.by_path.get(f"{here}{name}.rs") or self.by_path.get(f"{here}{name}/mod.rs")

    def _is_child(self, scan: FileScan) -> bool:
        """Whether some other file declares ``scan`` with ``mod`` (a crate root is not)."""
        if self._declared is None:
            self._declared = set()
            for other in self.scans:
                directory, _, filename = other.path.rpartition("/")
                for decl in other.mods:
                    self._declared.add((directory, decl.name))
                    self._declared.add((f"{directory}/{filename[:-3]}".lstrip("/"), decl.name))
        directory, _, filename = scan.path.rpartition("/")
        name = filename[:-3]
        if name == "mod":
            directory, _, name = directory.rpartition("/")
        return (directory, name) in self._declared

    def _add_impl(self, scan: FileScan, ctx: Ctx, methods: dict[str, Any]) -> None:
        loc_methods = {n: list(dict.fromkeys(RUST.locator(k, scan.module) for k in keys))
                       for n, keys in methods.items()}
        trait = self.type_ref(ctx.trait, ctx).locator if ctx.trait is not None else None
        if ctx.trait is not None and trait is None:
            trait = None  # an external trait (Display, Iterator): the impl is still T's
        impl = Impl(ctx, trait, loc_methods)
        self_ty = self.type_ref(ctx.self_type, ctx) if ctx.self_type is not None else Ty()
        for target in ([self_ty.locator] if self_ty.locator else []):
            self.impls.setdefault(target, []).append(impl)
            if ctx.trait is not None and trait is None:
                # A trait from outside (Display, Serialize, Iterator, Drop): its methods
                # are called by that code on values of the type.
                self.external_impls.append(
                    (target, [m for found in loc_methods.values() for m in found]))
        if trait is not None:
            self.implementors.setdefault(trait, []).append(impl)
        for name, locators in loc_methods.items():
            self.methods_named.setdefault(name, []).extend(locators)

    def crate_of(self, locator: str) -> str | None:
        """The root module of the crate defining ``locator``."""
        mod = self.mods.get(self.module_of.get(locator, ""))
        return mod.root if mod is not None else None

    # -- names ------------------------------------------------------------------------------
    def lookup(self, module: str, name: str, depth: int = 0) -> list[tuple[str, str]]:
        """What ``name`` means in ``module``: ``(kind, locator)`` pairs (``module`` kind:
        the locator is the module's id)."""
        key = (module, name)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = []  # a cycle of re-exports resolves to nothing
        mod = self.mods.get(module)
        found: list[tuple[str, str]] = []
        if mod is not None and depth < _MAX_DEPTH:
            found.extend(mod.items.get(name, ()))
            if name in mod.children:
                found.append(("module", mod.children[name]))
            for use in mod.uses.get(name, ()):
                found.extend(self.resolve(list(use.path), use.module, None, depth + 1)[0])
            if not found:
                for use in mod.globs:
                    for kind, target in self.resolve(list(use.path), use.module, None,
                                                     depth + 1)[0]:
                        if kind == "module":
                            found.extend(self.lookup(target, name, depth + 1))
        self._memo[key] = found
        return found

    def resolve(self, segs: list[str], module: str, ctx: Ctx | None,
                depth: int = 0) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """A path's final targets, and the definitions its earlier segments named."""
        if not segs or depth > _MAX_DEPTH:
            return [], []
        mod = self.mods.get(module)
        first, rest = segs[0], segs[1:]
        current: list[tuple[str, str]]
        if first == "" and rest:  # `::name`: a crate
            first, rest = rest[0], rest[1:]
            current = [("module", self.crates[first])] if first in self.crates else []
        elif first == "crate":
            current = [("module", mod.root)] if mod is not None and mod.root else []
        elif first == "self":
            current = [("module", module)]
        elif first == "super":
            current = [("module", mod.parent)] if mod is not None and mod.parent else []
            while rest and rest[0] == "super" and current:
                parent = self.mods.get(current[0][1])
                current = [("module", parent.parent)] if parent and parent.parent else []
                rest = rest[1:]
        elif first == "Self" and ctx is not None:
            impl = ctx.impl()
            ty = self.self_type(impl) if impl is not None else Ty()
            own = "trait" if impl is not None and impl.kind == "trait" else "bound"
            current = [(self.kinds.get(ty.locator, "struct"), ty.locator)] if ty.locator \
                else [(own, t) for t in ty.traits]
        elif ctx is not None and ctx.generic(first) is not None:
            bounds = ctx.generic(first) or []
            current = [("bound", t) for t in self._traits(bounds, ctx).traits]
        else:
            current = self._scoped(first, module, ctx)
            if not current and first in self.crates:
                current = [("module", self.crates[first])]
        named: list[tuple[str, str]] = []
        for seg in rest:
            if not current:
                return [], named
            named.extend(c for c in current if c[0] != "module")
            nxt: list[tuple[str, str]] = []
            for kind, target in current:
                if kind == "module":
                    nxt.extend(self.lookup(target, seg, depth + 1))
                else:
                    nxt.extend(("function", m) for m in self.associated(target, seg))
            current = nxt
        return current, named

    def _scoped(self, name: str, module: str, ctx: Ctx | None) -> list[tuple[str, str]]:
        """A name in the functions around the use (their nested items), then in
        ``module``."""
        fn = ctx
        while fn is not None:
            if fn.kind == "fn" and fn.locator is not None:
                found = self.nested.get(fn.locator, {}).get(name)
                if found:
                    return found
            fn = fn.parent
        return self.lookup(module, name)

    def associated(self, target: str, name: str) -> list[str]:
        """``T::name``: a method of ``T``'s impls (inherent first, then trait impls, then
        the implemented traits' default methods); a trait's own item."""
        if target in self.traits:
            found = self.traits[target].get(name)
            return [found] if found else []
        impls = self.impls.get(target, [])
        for trait_impls in (False, True):
            hits = [m for i in impls if (i.trait is not None) == trait_impls
                    for m in i.methods.get(name, ())]
            if hits:
                return hits
        for impl in impls:
            if impl.trait is not None and name in self.traits.get(impl.trait, {}):
                return [self.traits[impl.trait][name]]
        alias = self.aliases.get(target)
        if alias is not None:
            ty = self.type_ref(alias[1], alias[0])
            if ty.locator and ty.locator != target:
                return self.associated(ty.locator, name)
        return []

    # -- types ------------------------------------------------------------------------------
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
