"""Java: packages, definitions by a tree-sitter query, overloads told apart by their
parameter types (``docs/languages.md``).

``java:<kind>:<package>.<Outer>.<Inner>.<name>(<simple erased parameter types>)``;
constructors are ``<init>(…)``. The package is the file's own ``package`` declaration
(read from the same version of the repository), else its directories below the source
root (``src/main/java/``, ``src/test/java/``, ``src/``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from warpline.lang import Files
from warpline.lang.entities import FileEntities
from warpline.lang.tsdefs import (
    Def,
    Edit,
    build,
    last_line,
    leading_comments,
    load_query,
    nest_records,
    never_raises,
)
from warpline.lang.tsregions import Rec, records

__all__ = ["module_name", "read"]

_PACKAGE = re.compile(rb"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
# Single-type imports (``import a.b.C;``, not ``static`` ones nor ``a.b.*``).
_IMPORT = re.compile(rb"^\s*import\s+([\w.]*\.(\w+))\s*;", re.MULTILINE)
_ROOTS = ("src/main/java/", "src/test/java/", "src/")
_COMMENTS = frozenset({"block_comment", "line_comment"})
_TYPES = frozenset({"class", "interface", "enum", "record", "annotation"})


def module_name(path: str, files: Files | None) -> str | None:
    data = files.read(path) if files is not None else None
    if data is not None:
        found = _PACKAGE.search(data[:65536])
        if found is not None:
            return found.group(1).decode("ascii", "replace")
    directory = path.rpartition("/")[0]
    for root in _ROOTS:
        at = (directory + "/").find(root)
        if at >= 0 and (at == 0 or directory[at - 1] == "/"):
            directory = (directory + "/")[at + len(root):].rstrip("/")
            break
    return directory.replace("/", ".") or "(default)"


@lru_cache(maxsize=1)
def _grammar() -> tuple[Any, Any]:
    import tree_sitter
    import tree_sitter_java

    language = tree_sitter.Language(tree_sitter_java.language())
    return tree_sitter.Parser(language), load_query(language, "java.scm")


def _record(node: Any, kind: str) -> Rec:
    """One capture read: data ``(kind, name, anonymous)``; ``anonymous``: a member of an
    anonymous class or an enum constant's body, whose lines belong to the definition
    around it. Both are decided by the header of the body's owner (``head``)."""
    body = node.parent
    owner = body.parent if body is not None else None
    head = (owner.start_byte, body.start_byte + 1) if owner is not None else None
    anonymous = body is not None and body.type == "class_body" and owner is not None \
        and owner.type in ("object_creation_expression", "enum_constant")
    first, lo = leading_comments(node, node.start_point[0] + 1, _COMMENTS)
    name, written = _name(node, kind)
    return Rec(node.start_byte, node.end_byte, first, last_line(node), lo, node.end_byte,
               (kind, name, anonymous, written), head)


@never_raises
def read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    read_out = records(*_grammar(), source, edit, _record)
    if read_out is None:
        return None
    tree, found = read_out
    named = nest_records([rec for rec in found if not rec.data[2]])
    imports: dict[str, str] | None = None
    if _collide(named):
        imports = {m.group(2).decode("ascii", "replace"): m.group(1).decode("ascii", "replace")
                   for m in _IMPORT.finditer(source)}
    return build(source, _defs(named, "", imports), tree.root_node.has_error, "java")


def _collide(entries: list[tuple[Rec, list[Any]]]) -> bool:
    """Two siblings anywhere share a name (overloads on parameter types of one simple
    name: junit4's ``TestWatcher.skipped`` on two ``AssumptionViolatedException``s)."""
    seen: set[tuple[str, str]] = set()
    for rec, children in entries:
        key = (rec.data[0], rec.data[1])
        if (key[1] and key in seen) or _collide(children):
            return True
        seen.add(key)
    return False


def _defs(entries: list[tuple[Rec, list[Any]]], prefix: str,
          imports: dict[str, str] | None) -> list[Def]:
    names = [rec.data[1] for rec, _ in entries]
    if imports is not None:
        names = _qualified(entries, names, imports)
    out: list[Def] = []
    for (rec, children), name in zip(entries, names, strict=True):
        if not name:
            continue
        qualname = prefix + name
        out.append(Def((rec.data[0], qualname), rec.first, rec.last,
                       _defs(children, qualname + ".", imports)))
    return out


def _qualified(entries: list[tuple[Rec, list[Any]]], names: list[str],
               imports: dict[str, str]) -> list[str]:
    """Siblings sharing a name (kind and simple parameter types) have the parameter
    types that tell them apart qualified as the file says: a type written qualified as
    written, a simple name through its single-type import (else as written); the other
    positions and every sibling without a twin keep their simple names."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, (rec, _) in enumerate(entries):
        if names[index] and rec.data[3] is not None:
            groups.setdefault((rec.data[0], names[index]), []).append(index)
    out = list(names)
    for indexes in groups.values():
        if len(indexes) < 2:
            continue
        written = [[_resolve(t, imports) for t in entries[i][0].data[3]] for i in indexes]
        width = len(written[0])
        differ = [len({w[at] for w in written}) > 1 for at in range(width)]
        if not any(differ):
            continue
        for i, full in zip(indexes, written, strict=True):
            label, _, params = names[i].partition("(")
            simple = params[:-1].split(",") if params[:-1] else []
            chosen = (full[at] if differ[at] else simple[at] for at in range(width))
            out[i] = f"{label}({','.join(chosen)})"
    return out


def _resolve(written: str, imports: dict[str, str]) -> str:
    """A parameter type as the file qualifies it (``AssumptionViolatedException`` under
    ``import org.junit.AssumptionViolatedException;`` -> the import's name)."""
    head, dot, rest = written.partition(".")
    bare = head.rstrip("[]")
    if bare in imports:
        return imports[bare] + head[len(bare):] + dot + rest
    return written


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _name(node: Any, kind: str) -> tuple[str, tuple[str, ...] | None]:
    """The name (parameter types erased to simple names), and each parameter's type as
    written without its arguments (None for a type): what tells apart overloads whose
    simple names collide (``_qualified``)."""
    name = node.child_by_field_name("name")
    if kind in _TYPES:
        return (_text(name) if name is not None else ""), None
    label = "<init>" if kind == "constructor" else (_text(name) if name is not None else "")
    if not label:
        return "", None
    params = node.child_by_field_name("parameters")
    if params is None:  # a record's compact constructor takes the record's components
        if kind != "constructor":
            return f"{label}()", ()
        record = node.parent.parent if node.parent is not None else None
        params = record.child_by_field_name("parameters") if record is not None else None
        if params is None:
            return f"{label}()", ()
    found = _params(params)
    return (f"{label}({','.join(simple for simple, _ in found)})",
            tuple(written for _, written in found))


def _params(params: Any) -> list[tuple[str, str]]:
    """Each parameter's type: (erased simple name, erased as written)."""
    out: list[tuple[str, str]] = []
    for param in params.named_children:
        if param.type == "formal_parameter":
            typ = param.child_by_field_name("type")
            dims = param.child_by_field_name("dimensions")
            suffix = _text(dims).replace(" ", "") if dims is not None else ""
            if typ is None:
                out.append(("?" + suffix, "?" + suffix))
            else:
                out.append((_erase(typ) + suffix, _erase(typ, True) + suffix))
        elif param.type == "spread_parameter":
            typ = next((c for c in param.named_children
                        if c.type not in ("modifiers", "variable_declarator")), None)
            # varargs are arrays once compiled
            out.append(((_erase(typ) if typ is not None else "?") + "[]",
                        (_erase(typ, True) if typ is not None else "?") + "[]"))
    return out


def _erase(typ: Any, written: bool = False) -> str:
    """The simple name of a type without its arguments: ``java.util.List<String>`` ->
    ``List``, ``Map.Entry<K, V>[]`` -> ``Entry[]``; ``written``: its whole name as
    written (``java.util.List``, ``Map.Entry[]``)."""
    kind = typ.type
    if kind == "generic_type":
        base = next((c for c in typ.named_children if c.type != "type_arguments"), None)
        return _erase(base, written) if base is not None else _text(typ)
    if kind == "array_type":
        element = typ.child_by_field_name("element")
        dims = typ.child_by_field_name("dimensions")
        return (_erase(element, written) if element is not None else "?") + (
            "".join(_text(dims).split()) if dims is not None else "[]")
    if kind == "scoped_type_identifier":
        if written:
            return ".".join(_erase(c, True) for c in typ.named_children
                            if c.type != "annotation" and c.type != "marker_annotation")
        last = typ.named_children[-1] if typ.named_children else None
        return _erase(last) if last is not None else _text(typ)
    if kind == "annotated_type":
        inner = typ.named_children[-1] if typ.named_children else None
        return _erase(inner, written) if inner is not None else _text(typ)
    return "".join(_text(typ).split())
