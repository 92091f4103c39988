"""Edits to a Python module model, each shaped like a real small change.

Every edit returns a new ``Module`` and a short phrase for the commit message. Most edits
touch one function body (a small hunk); the rest add or remove definitions, or change the
module's imports or constants.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from _gen_python import (
    IMPORTS,
    NOUNS,
    Func,
    Klass,
    Module,
    fresh,
    new_class,
    new_func,
    statement,
)

Edit = Callable[[random.Random, Module], tuple[Module, str]]


def _defs(m: Module) -> list[tuple[int, int]]:
    """(item index, method index or -1) of every function and method."""
    out: list[tuple[int, int]] = []
    for i, item in enumerate(m.items):
        if isinstance(item, Func):
            out.append((i, -1))
        else:
            out.extend((i, j) for j in range(len(item.methods)))
    return out


def _tweak_body(rng: random.Random, f: Func) -> Func:
    body = list(f.body)
    last = len(body) - 1  # keep the final return/assert in place
    roll = rng.random()
    if roll < 0.45 and last > 0:
        body[rng.randrange(last)] = statement(rng)
    elif roll < 0.75 or last == 0:
        body.insert(rng.randint(0, last), statement(rng))
    elif roll < 0.9:
        del body[rng.randrange(last)]
    else:
        body.insert(last, statement(rng))
        body.insert(last, statement(rng))
    return replace(f, body=tuple(body))


def _set_def(m: Module, at: tuple[int, int], f: Func | None) -> Module:
    i, j = at
    items = list(m.items)
    if j < 0:
        if f is None:
            del items[i]
        else:
            items[i] = f
    else:
        k = items[i]
        assert isinstance(k, Klass)
        methods = list(k.methods)
        if f is None:
            del methods[j]
        else:
            methods[j] = f
        items[i] = replace(k, methods=tuple(methods))
    return replace(m, items=tuple(items))


def _get_def(m: Module, at: tuple[int, int]) -> Func:
    item = m.items[at[0]]
    if isinstance(item, Klass):
        return item.methods[at[1]]
    return item


def edit_body(rng: random.Random, m: Module) -> tuple[Module, str]:
    defs = _defs(m)
    if not defs:
        return add_function(rng, m)
    at = rng.choice(defs)
    f = _get_def(m, at)
    return _set_def(m, at, _tweak_body(rng, f)), f"fix {f.name}"


def add_function(rng: random.Random, m: Module) -> tuple[Module, str]:
    taken = {item.name for item in m.items}
    test = bool(m.items) and all(i.name.startswith("test_") for i in m.items)
    name = fresh(rng, taken, "test" if test else "func")
    items = list(m.items)
    items.insert(rng.randint(0, len(items)), new_func(rng, name, test=test))
    return replace(m, items=tuple(items)), f"add {name}"


def add_class(rng: random.Random, m: Module) -> tuple[Module, str]:
    name = fresh(rng, {item.name for item in m.items}, "class")
    return replace(m, items=(*m.items, new_class(rng, name))), f"add {name}"


def add_method(rng: random.Random, m: Module) -> tuple[Module, str]:
    classes = [i for i, item in enumerate(m.items) if isinstance(item, Klass)]
    if not classes:
        return add_function(rng, m)
    i = rng.choice(classes)
    k = m.items[i]
    assert isinstance(k, Klass)
    name = fresh(rng, {f.name for f in k.methods}, "func")
    methods = list(k.methods)
    methods.insert(rng.randint(1, len(methods)), new_func(rng, name, method=True))
    items = list(m.items)
    items[i] = replace(k, methods=tuple(methods))
    return replace(m, items=tuple(items)), f"add {k.name}.{name}"


def remove_def(rng: random.Random, m: Module) -> tuple[Module, str]:
    defs = [d for d in _defs(m) if _get_def(m, d).name != "__init__"]
    if len(defs) < 3:
        return edit_body(rng, m)
    at = rng.choice(defs)
    name = _get_def(m, at).name
    item = m.items[at[0]]
    if isinstance(item, Klass) and len(item.methods) == 1:
        at = (at[0], -1)  # removing the last method removes the class
    return _set_def(m, at, None), f"remove {name}"


def rename_def(rng: random.Random, m: Module) -> tuple[Module, str]:
    defs = [d for d in _defs(m) if d[1] < 0]
    if not defs:
        return edit_body(rng, m)
    at = rng.choice(defs)
    f = _get_def(m, at)
    name = fresh(rng, {item.name for item in m.items}, "func")
    return _set_def(m, at, replace(f, name=name)), f"rename {f.name} to {name}"


def change_import(rng: random.Random, m: Module) -> tuple[Module, str]:
    imports = list(m.imports)
    if len(imports) > 1 and rng.random() < 0.35:
        gone = imports.pop(rng.randrange(len(imports)))
        return replace(m, imports=tuple(imports)), f"drop unused {gone.split()[-1]}"
    extra = [i for i in IMPORTS if i not in imports]
    if not extra:
        return edit_body(rng, m)
    new = rng.choice(extra)
    imports.append(new)
    imports.sort(key=lambda line: line.startswith("if "))  # keep the TYPE_CHECKING block last
    return replace(m, imports=tuple(imports)), f"import {new.split()[-1]}"


def change_constant(rng: random.Random, m: Module) -> tuple[Module, str]:
    consts = list(m.constants)
    if consts and rng.random() < 0.7:
        i = rng.randrange(len(consts))
        consts[i] = (consts[i][0], str(rng.randint(1, 65536)))
        what = f"tune {consts[i][0]}"
    else:
        name = f"{rng.choice(NOUNS).upper()}_{rng.choice(NOUNS).upper()}"
        if any(name == c[0] for c in consts):
            return edit_body(rng, m)
        consts.append((name, str(rng.randint(1, 4096))))
        what = f"add {name}"
    return replace(m, constants=tuple(consts)), what


def mass_edit(rng: random.Random, m: Module) -> tuple[Module, str]:
    """A reformat-like sweep: many function bodies in one file change at once."""
    for at in _defs(m):
        if rng.random() < 0.3:
            m = _set_def(m, at, _tweak_body(rng, _get_def(m, at)))
    return m, "sweep"


PY_EDITS: tuple[tuple[Edit, int], ...] = (
    (edit_body, 58), (add_function, 8), (add_method, 8), (change_import, 6),
    (change_constant, 7), (remove_def, 7), (add_class, 2), (rename_def, 4),
)
TEST_EDITS: tuple[tuple[Edit, int], ...] = ((edit_body, 60), (add_function, 28), (remove_def, 12))
# Past ~4,000 lines a module stops growing: real projects split such files.
CAPPED_EDITS: tuple[tuple[Edit, int], ...] = (
    (edit_body, 60), (change_import, 6), (change_constant, 7), (remove_def, 27),
)


def pick_edit(rng: random.Random, table: tuple[tuple[Edit, int], ...]) -> Edit:
    return rng.choices([e for e, _ in table], [w for _, w in table])[0]
