"""Python source for the synthetic history: an immutable module model, rendering, edits.

Modules are frozen dataclasses so an edit builds a new value and a feature branch can share
every untouched module with the line it forked from. All randomness comes from the
``random.Random`` passed in, so the same seed renders the same bytes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

VERBS = ("load", "parse", "build", "render", "resolve", "fetch", "store", "update", "merge",
         "split", "validate", "normalize", "encode", "decode", "compute", "collect", "emit",
         "apply", "check", "scan", "index", "sync", "flush", "read", "write", "format",
         "convert", "register", "dispatch", "handle", "filter", "group", "match", "walk",
         "expand", "compile", "prune", "retry", "rank", "wrap")
NOUNS = ("config", "header", "token", "node", "path", "record", "entry", "cache", "batch",
         "chunk", "frame", "event", "request", "response", "session", "payload", "schema",
         "field", "column", "row", "table", "query", "plan", "graph", "edge", "buffer",
         "stream", "packet", "message", "channel", "rule", "policy", "option", "item",
         "result", "state", "context", "report", "span", "label")
CLASS_HEADS = ("Config", "Parser", "Builder", "Renderer", "Resolver", "Cache", "Index",
               "Session", "Client", "Server", "Handler", "Registry", "Manager", "Reader",
               "Writer", "Encoder", "Decoder", "Scanner", "Planner", "Store", "Queue", "Pool",
               "Worker", "Scheduler", "Router", "Filter", "Policy", "Validator", "Formatter")
CLASS_PREFIXES = ("Base", "Async", "Local", "Remote", "Cached", "Lazy", "Default", "Simple",
                  "Shared", "Batch", "Stream", "Http", "File", "Memory", "Sql", "Json", "Text")
VARS = ("value", "result", "count", "data", "items", "total", "key", "node", "buf", "path",
        "size", "offset", "limit", "entry", "record", "text", "name", "state", "flags", "parts")
IMPORTS = ("import os", "import re", "import sys", "import json", "import time", "import logging",
           "import hashlib", "import itertools", "import functools", "import threading",
           "from pathlib import Path", "from collections import defaultdict",
           "from collections import OrderedDict", "from dataclasses import dataclass, field",
           "from typing import Any", "from typing import Iterator", "from enum import Enum",
           "from contextlib import contextmanager", "from functools import lru_cache",
           "if TYPE_CHECKING:\n    from collections.abc import Mapping")


@dataclass(frozen=True, slots=True)
class Func:
    name: str
    params: tuple[str, ...]
    body: tuple[str, ...]  # statements; nested lines are indented relative to the body
    decorator: str | None = None
    is_async: bool = False


@dataclass(frozen=True, slots=True)
class Klass:
    name: str
    base: str | None
    attrs: tuple[str, ...]
    methods: tuple[Func, ...]


@dataclass(frozen=True, slots=True)
class Module:
    doc: str
    imports: tuple[str, ...]
    constants: tuple[tuple[str, str], ...]
    items: tuple[Func | Klass, ...]
    broken: bool = False  # renders a stray conflict marker: the file does not parse


# -- names and statements --------------------------------------------------------------
def fresh(rng: random.Random, taken: set[str], make: str) -> str:
    for _ in range(6):
        if make == "class":
            name = rng.choice(CLASS_PREFIXES) + rng.choice(CLASS_HEADS)
        elif make == "test":
            name = f"test_{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
        else:
            name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
            name = "_" + name if rng.random() < 0.2 else name
        if name not in taken:
            return name
    n = 2
    while f"{name}_{n}" in taken:
        n += 1
    return f"{name}_{n}"


def _expr(rng: random.Random) -> str:
    v, w, i = rng.choice(VARS), rng.choice(VARS), rng.randint(0, 99)
    word = rng.choice(NOUNS)
    return rng.choice((
        f"{v} + {i}", f"{rng.choice(VERBS)}_{word}({v}, {i})", f"len({v})", f'"{word}"',
        f"[{v}, {w}]", f'{{"{word}": {v}}}', f'{v}.get("{word}", {i})',
        f"{v} if {w} else {i}", f"({v} * {i}) % {rng.randint(2, 97)}", f"self_check({v})",
    ))


def statement(rng: random.Random) -> str:
    v, w, x = rng.choice(VARS), rng.choice(VARS), rng.choice(VARS)
    i, word = rng.randint(0, 999), rng.choice(NOUNS)
    kind = rng.randrange(12)
    if kind < 3:
        return f"{v} = {_expr(rng)}"
    if kind == 3:
        return f"{v} += {i}"
    if kind == 4:
        return f"if {v} > {i}:\n    {w} = {_expr(rng)}"
    if kind == 5:
        return f"if {v}:\n    {w} = {_expr(rng)}\nelse:\n    {w} = {i}"
    if kind == 6:
        return f"for item in {v}:\n    {w}.append(item)"
    if kind == 7:
        return (f"try:\n    {v} = {rng.choice(VERBS)}_{word}({w})\n"
                f"except (KeyError, ValueError):\n    {v} = None")
    if kind == 8:
        return f'logger.debug("{word} %s", {v})'
    if kind == 9:
        return f"with open_{word}({v}) as fh:\n    {x} = fh.read()"
    if kind == 10:
        return f'assert {v} is not None, "{word}"'
    return f"while {v} < {i}:\n    {v} += 1"


def _nested(rng: random.Random) -> str:
    v = rng.choice(VARS)
    return f"def _inner_{rng.choice(NOUNS)}({v}):\n    return {_expr(rng)}\n\n{v} = {v}"


def new_func(rng: random.Random, name: str, *, method: bool = False, test: bool = False) -> Func:
    n = max(1, int(rng.lognormvariate(1.4, 0.6)))
    body = [statement(rng) for _ in range(min(n, 30))]
    if not test and rng.random() < 0.35:
        body.insert(0, f'"""{rng.choice(VERBS).capitalize()} the {rng.choice(NOUNS)}."""')
    if not test and rng.random() < 0.05:
        body.insert(len(body) // 2, _nested(rng))
    if test:
        body.append(f"assert {rng.choice(VARS)} == {rng.randint(0, 99)}")
        return Func(name, (), tuple(body))
    body.append(f"return {rng.choice(VARS)}")
    params = tuple(rng.sample(VARS, rng.randint(0, 3)))
    decorator = None
    if method:
        roll = rng.random()
        if roll < 0.08:
            return Func(name, ("self",), tuple(body), "@property")
        if roll < 0.12:
            decorator = "@staticmethod"
        else:
            params = ("self", *params)
    is_async = rng.random() < 0.04
    if is_async:
        body.insert(0, f"{rng.choice(VARS)} = await fetch_{rng.choice(NOUNS)}()")
    return Func(name, params, tuple(body), decorator, is_async)


def new_class(rng: random.Random, name: str) -> Klass:
    methods: list[Func] = [new_func(rng, "__init__", method=True)]
    taken = {"__init__"}
    for _ in range(max(1, int(rng.lognormvariate(1.3, 0.7)))):
        mname = fresh(rng, taken, "func")
        taken.add(mname)
        methods.append(new_func(rng, mname, method=True))
    attrs = (f'kind = "{rng.choice(NOUNS)}"',) if rng.random() < 0.3 else ()
    base = rng.choice((None, None, "object", "Exception", "Protocol", "Generic[T]"))
    return Klass(name, base, attrs, tuple(methods))


def new_module(rng: random.Random, target_lines: int, *, test: bool = False) -> Module:
    imports = tuple(sorted(rng.sample(IMPORTS[:-1], rng.randint(1, 5))))
    constants = tuple((f"{rng.choice(NOUNS).upper()}_{rng.choice(NOUNS).upper()}",
                       str(rng.randint(1, 4096))) for _ in range(rng.randint(0, 4)))
    items: list[Func | Klass] = []
    taken: set[str] = set()
    lines = 6 + len(imports) + len(constants)
    while lines < target_lines:
        if not test and rng.random() < 0.25:
            name = fresh(rng, taken, "class")
            item: Func | Klass = new_class(rng, name)
        else:
            name = fresh(rng, taken, "test" if test else "func")
            item = new_func(rng, name, test=test)
        taken.add(name)
        items.append(item)
        lines += len(render_item(item)) + 2
    doc = f"{rng.choice(VERBS).capitalize()} and {rng.choice(VERBS)} {rng.choice(NOUNS)}s."
    return Module(doc, imports, constants, tuple(items))


# -- rendering -------------------------------------------------------------------------
def _render_func(f: Func, indent: str) -> list[str]:
    out = [indent + f.decorator] if f.decorator else []
    out.append(f"{indent}{'async ' if f.is_async else ''}def {f.name}({', '.join(f.params)}):")
    inner = indent + "    "
    for stmt in f.body:
        out.extend(inner + line if line else "" for line in stmt.split("\n"))
    return out


@lru_cache(maxsize=1 << 16)  # most definitions are unchanged between two versions
def render_item(item: Func | Klass) -> tuple[str, ...]:
    if isinstance(item, Func):
        return tuple(_render_func(item, ""))
    out = [f"class {item.name}({item.base}):" if item.base else f"class {item.name}:"]
    out.extend("    " + attr for attr in item.attrs)
    for index, method in enumerate(item.methods):
        if index or item.attrs:
            out.append("")
        out.extend(_render_func(method, "    "))
    return tuple(out)


def render(m: Module) -> bytes:
    out = [f'"""{m.doc}"""', ""]
    out.extend(m.imports)
    if m.constants:
        out.append("")
        out.extend(f"{name} = {value}" for name, value in m.constants)
    for item in m.items:
        out.extend(("", ""))
        out.extend(render_item(item))
    if m.broken:
        out.insert(len(out) // 2, "<<<<<<< HEAD")
    return ("\n".join(out) + "\n").encode()
