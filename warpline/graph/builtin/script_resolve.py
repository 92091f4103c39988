"""Resolving TypeScript/JavaScript names across files: import specifiers to files
(relative paths, ``index`` files, TypeScript's ``.js`` -> ``.ts`` convention, the root
``tsconfig.json``'s ``baseUrl`` and ``paths``), a file's exports (re-exports and
``export *`` followed), members of a class, an object or a module, ``this.m``.

A use resolves to one definition, to candidates (a method call on a value of unknown
type: every definition of that name in the repository, when there are at most
``MAX_CANDIDATES``; the edge says ``candidate``), or to nothing: a global or a library's
name (no edge), or a call with more candidates than that or a platform method's name
(``PLATFORM``: counted unresolved).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator

from warpline.graph.builtin.script_scan import Binding, FileScan, Use

__all__ = ["MAX_CANDIDATES", "Resolver", "tsconfig_paths"]

MAX_CANDIDATES = 3
# Methods the platform's own types define (ECMAScript's built-ins, Node's EventEmitter and
# streams, Proxy traps): a call of one on a value of unknown type is at least as likely the
# platform's, so it gets no candidate (it counts as unresolved when the repository defines
# such a method too).
PLATFORM = frozenset("""
at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat
flatMap forEach includes indexOf join keys lastIndexOf map pop push reduce reduceRight
reverse shift slice some sort splice unshift values get set has delete clear add then catch
finally next return throw valueOf toString toJSON toLocaleString hasOwnProperty call apply
bind replace split trim match startsWith endsWith toLowerCase toUpperCase charAt substring
test exec on once off emit addListener removeListener removeAllListeners prependListener
prependOnceListener listeners listenerCount pipe unpipe write end destroy read resume pause
close getOwnPropertyDescriptor defineProperty setPrototypeOf getPrototypeOf ownKeys
deleteProperty
""".split())
_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".mjs": (".mts",), ".cjs": (".cts",), ".jsx": (".tsx",)}
_COMMENTS = re.compile(r'//[^\n]*|/\*.*?\*/|("(?:\\.|[^"\\])*")', re.S)
_MAX_DEPTH = 8
# Declarations in the type namespace only: a value's use (`new Error()`) never names one
# (the global of that name is meant).
_TYPES = ("ts:interface:", "ts:type:")

Place = tuple[FileScan, str]  # a named place: the file and a qualname in it


def tsconfig_paths(text: bytes | None) -> tuple[str, dict[str, list[str]]]:
    """The root tsconfig's ``baseUrl`` and ``paths`` (comments and trailing commas
    allowed, as TypeScript reads it); ("", {}) when absent or unreadable."""
    if not text:
        return "", {}
    raw = _COMMENTS.sub(lambda m: m.group(1) or "", text.decode("utf-8", "replace"))
    raw = re.sub(r",(\s*[}\]])", r"\1", raw)
    try:
        options = json.loads(raw).get("compilerOptions") or {}
    except (ValueError, AttributeError):
        return "", {}
    base = str(options.get("baseUrl") or "")
    paths = options.get("paths") or {}
    if not isinstance(paths, dict):
        paths = {}
    return base, {str(k): [str(t) for t in v] for k, v in paths.items() if isinstance(v, list)}


class Resolver:
    def __init__(self, files: dict[str, FileScan], base: str = "",
                 paths: dict[str, list[str]] | None = None) -> None:
        self.files = files
        self.base = posixpath.normpath(base) if base else ""
        self.paths = paths or {}
        self.by_name: dict[str, list[str]] = {}  # last segment -> member locators
        for scan in files.values():
            for qualname, locator in scan.locators.items():
                if "." in qualname and locator.startswith("ts:method:"):
                    name = qualname.rpartition(".")[2].partition("~")[0]
                    self.by_name.setdefault(name, []).append(locator)
        self._modules: dict[tuple[str, str], FileScan | None] = {}

    # -- files -------------------------------------------------------------------------
    def module(self, importer: FileScan, spec: str) -> FileScan | None:
        key = (importer.path, spec)
        if key not in self._modules:
            self._modules[key] = self._find(importer, spec)
        return self._modules[key]

    def _find(self, importer: FileScan, spec: str) -> FileScan | None:
        if spec.startswith("."):
            directory = posixpath.dirname(importer.path)
            return self._file(posixpath.normpath(posixpath.join(directory, spec)))
        for pattern, targets in self.paths.items():
            head, star, tail = pattern.partition("*")
            if star and spec.startswith(head) and spec.endswith(tail):
                middle = spec[len(head):len(spec) - len(tail) if tail else None]
            elif not star and spec == pattern:
                middle = ""
            else:
                continue
            for target in targets:
                found = self._file(self._join(target.replace("*", middle, 1)))
                if found is not None:
                    return found
        if self.base:
            return self._file(self._join(spec))
        return None

    def _join(self, target: str) -> str:
        return posixpath.normpath(posixpath.join(self.base, target) if self.base else target)

    def _file(self, stem: str) -> FileScan | None:
        if stem.startswith("../"):
            return None
        candidates = [stem]
        for js, tss in _JS_TO_TS.items():
            if stem.endswith(js):
                candidates += [stem[: -len(js)] + ts for ts in tss]
        candidates += [stem + s for s in _SUFFIXES]
        candidates += [f"{stem}/index{s}" for s in _SUFFIXES]
        return next((self.files[c] for c in candidates if c in self.files), None)

    # -- names ---------------------------------------------------------------------------
    def export(self, scan: FileScan, name: str, depth: int = 0) -> Place | None:
        if depth > _MAX_DEPTH:
            return None
        binding = scan.exports.get(name)
        if binding is not None:
            return self.place(scan, binding, depth + 1)
        for spec in scan.stars:
            target = self.module(scan, spec)
            if target is not None and target is not scan:
                found = self.export(target, name, depth + 1)
                if found is not None:
                    return found
        return None

    def place(self, scan: FileScan, binding: Binding, depth: int = 0) -> Place | None:
        """Where a binding of ``scan`` points (None: nothing in the repository)."""
        if depth > _MAX_DEPTH:
            return None
        kind = binding[0]
        if kind in ("thisfield", "ret"):
            return None
        if kind == "qual":
            return (scan, binding[1])
        if kind in ("import", "require"):
            target = self.module(scan, binding[1])
            name = binding[2] if kind == "import" else "default"
            return self.export(target, name, depth + 1) if target is not None else None
        if kind == "var" and binding[1]:
            found = scan.top.get(binding[1])
            if found is not None and found[0] != "var":
                return self.place(scan, found, depth + 1)
        return None

    def member(self, scan: FileScan, use: Use) -> Place | str | None:
        """The place ``obj.m`` names; "unknown" when the object's type is not known."""
        target = use.target
        if target[0] == "ret":  # f().m, x.f().m: m of the type f declares it returns
            fname, inner = target[1], tuple(target[2:])
            callee = self.member(scan, Use(use.owner, use.source, "calls", inner, fname)) \
                if fname else self.place(scan, inner)
            if not isinstance(callee, tuple):
                return "unknown"  # a library's call, or one on a value of unknown type
            typed = callee[0].returns.get(callee[1])
            where = self.place(callee[0], ("var", typed)) if typed else None
            return (where[0], f"{where[1]}.{use.member}") if where else "unknown"
        if target[0] == "thisfield":  # this.a.m: m of the type field a is declared with
            qualname = use.owner or ""
            while qualname:
                qualname = qualname.rpartition(".")[0]
                typed = scan.fields.get(f"{qualname}.{target[1]}") if qualname else None
                if typed:
                    where = self.place(scan, ("var", typed))
                    return (where[0], f"{where[1]}.{use.member}") if where else None
            return "unknown"
        if target[0] == "this":
            qualname = use.owner
            static = use.owner in scan.statics  # `this` in a static method: the class
            while qualname:
                qualname = qualname.rpartition(".")[0]
                candidate = f"{qualname}.{use.member}" if qualname else ""
                if candidate and candidate in scan.locators:
                    if (candidate in scan.statics) != static:
                        return "unknown"  # an instance's own property, not the static
                    return (scan, candidate)
            own = f"{use.owner}.{use.member}"  # a constructor function's this.m
            if use.owner and own in scan.locators:
                return (scan, own)
            return "unknown"
        if target[0] in ("ns", "require"):
            module = self.module(scan, target[1])
            if module is None:
                return None  # a library's module
            found = self.export(module, use.member)
            if found is None:
                default = self.export(module, "default")
                if default is not None:
                    return (default[0], f"{default[1]}.{use.member}")
            return found
        where = self.place(scan, target)
        if where is None:
            return "unknown" if target[0] == "var" else None
        return (where[0], f"{where[1]}.{use.member}")

    def targets(self, scan: FileScan, use: Use) -> Iterator[tuple[str, str]]:
        """``(locator, confidence)`` of each definition ``use`` reaches; none for a
        global, a library's name or a local value."""
        if not use.member:
            where = self.place(scan, use.target)
            if where is not None:
                locator = where[0].locators.get(where[1])
                if locator is not None and not (use.value and locator.startswith(_TYPES)):
                    yield locator, "resolved"
            return
        found = self.member(scan, use)
        if found == "unknown":
            if use.kind == "calls":
                yield from ((loc, "candidate") for loc in self.candidates(use.member))
            return
        if isinstance(found, tuple):
            locator = found[0].locators.get(found[1]) or self._through_alias(found)
            if locator is not None:
                yield locator, "resolved"

    def _through_alias(self, found: Place) -> str | None:
        """``X.m`` where ``X`` aliases a type over ``Y``: ``Y.m`` (up to 8 aliases)."""
        scan, qualname = found
        for _ in range(_MAX_DEPTH):
            owner, _, member = qualname.rpartition(".")
            base = scan.aliases.get(owner)
            if base is None:
                return None
            where = self.place(scan, ("var", base))
            if where is None:
                return None
            scan, qualname = where[0], f"{where[1]}.{member}"
            locator = scan.locators.get(qualname)
            if locator is not None:
                return locator
        return None

    def candidates(self, name: str) -> list[str]:
        found = self.by_name.get(name, [])
        return found if len(found) <= MAX_CANDIDATES and name not in PLATFORM else []

    def unresolved(self, use: Use) -> bool:
        """A call on a value of unknown type to a repository method's name that gets no
        candidate (too many, or a platform name): counted, no edge."""
        found = self.by_name.get(use.member, [])
        return use.kind == "calls" and bool(found) and (
            len(found) > MAX_CANDIDATES or use.member in PLATFORM)
