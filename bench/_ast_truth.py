"""An independent per-commit attribution truth: Python's ``ast`` over both sides of each
changed ``.py`` file, definitions compared by their own source text.

Written from the design's rules (DESIGN section 4), sharing no code with ``warpline``:
the commits and file pairs come from ``git log --raw -M`` (git's own rename detection),
blobs from ``git cat-file --batch``, definitions from ``ast``.

* Versions ``ast`` rejects (py2-era syntax) are read with lib2to3's Python 2 grammar (the
  standard library's own, up to Python 3.12), the same rules applied to its tree.
* Definitions: classes and functions (methods, nested functions, async defs). Qualnames
  follow CPython (``A.B.m``, ``f.<locals>.g``); a def inside ``if``/``try``/``with``/
  ``for``/``while``/``match`` takes its scope's qualname. ``@overload`` stubs are folded
  into the definition of the same qualname. Duplicate qualnames are one definition.
* A definition's span runs from its first decorator to its ``end_lineno``; its own text is
  the non-blank lines of the span minus nested definitions' spans (each cut marked, so a
  statement moved across a nested definition changes the text).
* Per file pair: only in the new side ``added``, only in the old ``removed``; on both
  sides: ``moved`` when git renamed the file, else ``modified`` when the own text differs.
"""

from __future__ import annotations

import ast
import subprocess
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SCOPES = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)
_CUT = "\x00cut"


@dataclass(slots=True)
class FilePair:
    status: str  # A, D, M, R (T and C treated as M / A)
    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None


@dataclass(slots=True)
class Commit:
    sha: str
    pairs: list[FilePair] = field(default_factory=list)


def dotted(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if len(parts) > 1 and parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or any(not p for p in parts):
        return None
    return ".".join(parts)


def commits(repo: Path, count: int) -> list[Commit]:
    """The newest ``count`` non-merge commits with their changed ``.py`` file pairs."""
    out = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.quotePath=false", "log", "--no-merges",
         f"-n{count}", "--root", "--raw", "-M", "--no-abbrev", "--format=@@%H"],
        capture_output=True, text=True, check=True, errors="replace").stdout
    found: list[Commit] = []
    for line in out.splitlines():
        if line.startswith("@@"):
            found.append(Commit(line[2:]))
        elif line.startswith(":") and found:
            meta, *paths = line.split("\t")
            _, _, old_blob, new_blob, status = meta.split(" ")
            kind = status[0]
            zero = "0" * 40
            if kind == "R":
                old, new = paths
            elif kind == "C":
                kind, old, new = "A", None, paths[1]
            else:
                old = new = paths[0]
            if not ((old or "").endswith(".py") or (new or "").endswith(".py")):
                continue
            if kind == "T":
                kind = "M"
            found[-1].pairs.append(FilePair(
                kind, None if kind == "A" else old, None if kind == "D" else new,
                None if old_blob == zero else old_blob, None if new_blob == zero else new_blob))
    return found


class Blobs:
    """``git cat-file --batch``: one process for every blob read."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self, oid: str) -> bytes:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(oid.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3:
            return b""
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


Span = tuple[int, int, list[tuple[int, int]]]


def definitions(source: bytes) -> dict[tuple[str, str], tuple[str, ...]] | None:
    """(kind, qualname) -> own text lines; None when neither ``ast`` nor (for py2-era
    source) lib2to3's Python 2 grammar can parse the source."""
    spans: dict[tuple[str, str], list[Span]] = {}
    stubs: dict[tuple[str, str], list[Span]] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        found = _py2_spans(source)
        if found is None:
            return None
        for kind, qualname, first, end, nested in found:
            spans.setdefault((kind, qualname), []).append((first, end, nested))
    else:
        for kind, qualname, node, nested in _walk(tree.body, ""):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            end = node.end_lineno or node.lineno
            target = stubs if _is_overload(node) else spans
            target.setdefault((kind, qualname), []).append((first, end, nested))
    lines = source.decode("utf-8", "replace").splitlines()
    for key, extra in stubs.items():
        if key in spans:
            spans[key].extend(extra)
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for key, occurrences in spans.items():
        text: list[str] = []
        for first, end, nested in sorted(occurrences):
            cuts = sorted(nested)
            number = first
            for cut_first, cut_end in cuts:
                text.extend(x for x in lines[number - 1:cut_first - 1] if x.strip())
                if not text or text[-1] != _CUT:  # adjacent nested definitions: one cut
                    text.append(_CUT)
                number = max(number, cut_end + 1)
            text.extend(x for x in lines[number - 1:end] if x.strip())
        out[key] = tuple(text)
    return out


def _py2_spans(source: bytes) -> list[tuple[str, str, int, int, list[tuple[int, int]]]] | None:
    """Definitions of a py2-era file (``print x``, ``except E, e``) from lib2to3's grammar,
    which ``ast`` rejects: (kind, qualname, first line, last line, nested spans)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from lib2to3 import pygram, pytree
            from lib2to3.pgen2 import driver
    except ImportError:  # lib2to3 is gone from Python 3.13
        return None
    text = source.decode("utf-8", "replace")
    if not text.endswith("\n"):
        text += "\n"
    tree = None
    for grammar in (pygram.python_grammar, pygram.python_grammar_no_print_statement):
        try:
            tree = driver.Driver(grammar, convert=pytree.convert).parse_string(text)
            break
        except Exception:  # lib2to3 raises ParseError, TokenError, IndentationError
            continue
    if tree is None:
        return None
    symbols = pygram.python_symbols
    kinds = {symbols.funcdef: "function", symbols.classdef: "class"}

    def span(node: Any) -> tuple[int, int]:
        start = node.parent.get_lineno() if node.parent.type == symbols.decorated \
            else node.get_lineno()
        end = max((leaf.lineno + leaf.value.count("\n") for leaf in node.leaves()
                   if leaf.value.strip()), default=start)
        return start, end

    def defs_in(node: Any) -> list[Any]:
        found = []
        for child in node.children:
            if child.type in kinds:
                found.append(child)
            else:
                found.extend(defs_in(child))
        return found

    out: list[tuple[str, str, int, int, list[tuple[int, int]]]] = []

    def walk(node: Any, prefix: str) -> None:
        for child in defs_in(node):
            kind = kinds[child.type]
            qualname = prefix + child.children[1].value
            first, end = span(child)
            inner = defs_in(child)
            out.append((kind, qualname, first, end, [span(c) for c in inner]))
            walk(child, qualname + ("." if kind == "class" else ".<locals>."))

    walk(tree, "")
    return out


def _is_overload(node: ast.AST) -> bool:
    for d in getattr(node, "decorator_list", []):
        name = d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")
        if name == "overload":
            return True
    return False


def _walk(body: list[ast.stmt], prefix: str
          ) -> Iterator[tuple[str, str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
                              list[tuple[int, int]]]]:
    for node in _defs_in(body):
        qualname = prefix + node.name
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        inner_prefix = qualname + "." if kind == "class" else qualname + ".<locals>."
        children = list(_defs_in(node.body))
        nested = [(min([c.lineno, *(d.lineno for d in c.decorator_list)]),
                   c.end_lineno or c.lineno) for c in children]
        yield kind, qualname, node, nested
        yield from _walk(node.body, inner_prefix)


def _defs_in(body: list[ast.stmt]
             ) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, _SCOPES):
            for name in ("body", "orelse", "finalbody"):
                yield from _defs_in(getattr(node, name, []))
            for handler in getattr(node, "handlers", []):
                yield from _defs_in(handler.body)
        elif isinstance(node, ast.Match):
            for case in node.cases:
                yield from _defs_in(case.body)


Key = tuple[str, str, str]  # (commit sha, locator, change kind)


def truth_events(commit: Commit, blobs: Blobs) -> tuple[set[Key], dict[Key, bool], set[str]]:
    """The commit's (sha, locator, kind) events; for ``moved`` whether the text changed;
    and the paths skipped because ``ast`` could not read a side."""
    events: set[Key] = set()
    edited: dict[Key, bool] = {}
    skipped: set[str] = set()
    for pair in commit.pairs:
        old_mod = dotted(pair.old_path) if pair.old_path else None
        new_mod = dotted(pair.new_path) if pair.new_path else None
        old = new = None
        if pair.old_path and old_mod is not None and pair.old_blob:
            old = definitions(blobs.read(pair.old_blob))
            if old is None:
                skipped.add(pair.old_path)
                continue
        if pair.new_path and new_mod is not None and pair.new_blob:
            new = definitions(blobs.read(pair.new_blob))
            if new is None:
                skipped.add(pair.new_path)
                continue
        old, new = old or {}, new or {}
        for key in new.keys() - old.keys():
            events.add((commit.sha, f"python:{key[0]}:{new_mod}.{key[1]}", "added"))
        for key in old.keys() - new.keys():
            events.add((commit.sha, f"python:{key[0]}:{old_mod}.{key[1]}", "removed"))
        for key in old.keys() & new.keys():
            locator = f"python:{key[0]}:{new_mod}.{key[1]}"
            if pair.status == "R":
                event = (commit.sha, locator, "moved")
                events.add(event)
                edited[event] = old[key] != new[key]
            elif old[key] != new[key]:
                events.add((commit.sha, locator, "modified"))
    return events, edited, skipped
