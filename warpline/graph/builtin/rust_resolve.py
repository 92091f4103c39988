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
* Types of expressions: ``rust_types`` (the resolver's other half).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpline.graph.builtin.rust_scan import Ctx, FileScan, Use
from warpline.graph.builtin.rust_types import Ty, TypeReader
from warpline.lang import RUST

__all__ = ["Mod", "Resolver", "Ty"]

_MAX_DEPTH = 8


@dataclass(slots=True)
class Mod:
    """One module of a crate: its items, its ``use``s (named and glob) and its child modules."""
    id: str
    root: str = ""
    parent: str | None = None
    items: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # name -> kind, loc
    uses: dict[str, list[Use]] = field(default_factory=dict)
    globs: list[Use] = field(default_factory=list)
    children: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Impl:
    """One ``impl`` block: where it is, the trait it implements (None: inherent), its methods."""
    ctx: Ctx
    trait: str | None
    methods: dict[str, list[str]]


class Resolver(TypeReader):
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
