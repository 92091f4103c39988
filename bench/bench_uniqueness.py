"""One definition, one locator: definitions of one file version sharing a locator, outside
documented overload groups, over every corpus (issue 35's acceptance; target 0).

    python bench/bench_uniqueness.py [BUNDLE_OR_REPO ...] [--commits 300] [--sample 4]

Default: every bundle in ``/work/shared/corpora``. Read: every file of the HEAD tree and
every file version the newest ``--commits`` non-merge commits wrote (each blob once per
language), by warpline's own row for its suffix. A key counted more than once in one
version (``FileEntities.counts``: Python's ``@overload`` stubs are not counted) is
*shared*, unless it is a documented group:

* TypeScript/JavaScript: an overload group or a get/set pair (``script.overload_groups``);
* Python: a property with its ``@x.setter``/``.deleter``/``.getter``; alternatives (every
  occurrence in a different branch of one ``if``/``elif``/``else``, ``try``/``except``/
  ``else`` or ``match``: one exists at run time); a rebinding (a later ``def`` of the name
  in the same block). CPython binds one name and loomweave emits one id for each;
* Rust: the inherent ``impl`` blocks of one type key (loomweave's one id; the methods
  inside stay distinct);
* Go: several ``func init()`` of one file (not referable: one entity, the file's init);
* Java: none (overloads on parameter types of one simple name are qualified).

Printed per corpus and language: versions read, shared keys, a sample; written to
``bench/out/bench_uniqueness.json``.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import subprocess
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pygit2

from warpline.lang import language_of
from warpline.lang.entities import FileEntities
from warpline.lang.script import overload_groups

CORPORA = Path("/work/shared/corpora")


def _versions(repo: pygit2.Repository, path: Path, count: int) -> dict[tuple[str, str], str]:
    """``(blob oid, suffix) -> a path`` of every read file of HEAD and of the newest
    ``count`` non-merge commits' new sides."""
    out: dict[tuple[str, str], str] = {}

    def add(oid: str, name: str) -> None:
        lang = language_of(name)
        if lang is not None and "node_modules/" not in name:
            out.setdefault((oid, name[name.rfind("."):]), name)

    stack: list[tuple[str, pygit2.Tree]] = [("", repo.head.peel(pygit2.Commit).tree)]
    while stack:
        prefix, tree = stack.pop()
        for entry in tree:
            name = f"{prefix}{entry.name}"
            if isinstance(entry, pygit2.Tree):
                stack.append((name + "/", entry))
            elif isinstance(entry, pygit2.Blob):
                add(str(entry.id), name)
    log = subprocess.run(["git", "-C", str(path), "log", "--no-merges", "-n", str(count),
                          "--raw", "--no-renames", "--format=", "--no-abbrev"],
                         capture_output=True, text=True, check=True).stdout
    for line in log.splitlines():
        meta, _, name = line.partition("\t")
        fields = meta.split()
        if len(fields) >= 4 and set(fields[3]) != {"0"}:
            add(fields[3], name)
    return out


def _python_kind(data: bytes, lines: list[str], qualname: str,
                 spans: tuple[tuple[int, int], ...]) -> str:
    heads = [lines[first - 1] if first <= len(lines) else "" for first, _ in spans]
    if any(".setter" in h or ".deleter" in h or ".getter" in h for h in heads):
        return "property accessors"
    paths = _python_branches(data).get(qualname, [])
    if len(paths) > 1 and all(_exclusive(a, b) for i, a in enumerate(paths)
                              for b in paths[i + 1:]):
        return "conditional alternatives"
    return "rebindings"


_Branch = tuple[tuple[int, int], ...]


def _python_branches(data: bytes) -> dict[str, list[_Branch]]:
    """Each non-stub definition's qualname (CPython's) -> the branches it sits in, one
    path per occurrence: (statement line, block index) from its scope's body down."""
    out: dict[str, list[_Branch]] = defaultdict(list)
    try:
        body = ast.parse(data).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return out

    def walk(stmts: list[ast.stmt], prefix: str, path: _Branch) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                stub = any((isinstance(d, ast.Name) and d.id == "overload")
                           or (isinstance(d, ast.Attribute) and d.attr == "overload")
                           for d in stmt.decorator_list)
                name = prefix + stmt.name
                if not stub or isinstance(stmt, ast.ClassDef):
                    out[name].append(path)
                inner = ".<locals>." if not isinstance(stmt, ast.ClassDef) else "."
                walk(stmt.body, name + inner, ())
            elif isinstance(stmt, ast.If):
                walk(stmt.body, prefix, (*path, (stmt.lineno, 0)))
                walk(stmt.orelse, prefix, (*path, (stmt.lineno, 1)))
            elif isinstance(stmt, ast.Try | ast.TryStar):
                blocks = [stmt.body, *(h.body for h in stmt.handlers), stmt.orelse]
                for index, block in enumerate(blocks):
                    walk(block, prefix, (*path, (stmt.lineno, index)))
                walk(stmt.finalbody, prefix, path)
            elif isinstance(stmt, ast.Match):
                for index, case in enumerate(stmt.cases):
                    walk(case.body, prefix, (*path, (stmt.lineno, index)))
            elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
                walk(stmt.body, prefix, path)
                walk(stmt.orelse, prefix, path)
            elif isinstance(stmt, ast.With | ast.AsyncWith):
                walk(stmt.body, prefix, path)

    walk(body, "", ())
    return out


def _exclusive(a: _Branch, b: _Branch) -> bool:
    """Two occurrences sit in different branches of one statement (only one runs)."""
    for (line_a, block_a), (line_b, block_b) in zip(a, b, strict=False):
        if line_a != line_b:
            return False
        if block_a != block_b:
            return True
    return False


_DOCUMENTED = frozenset({"property accessors", "conditional alternatives", "rebindings",
                         "inherent impl blocks", "init functions"})


def _kind(prefix: str, key: tuple[str, str], data: bytes, lines: list[str],
          spans: tuple[tuple[int, int], ...]) -> str:
    """What a shared key is: a documented group's name, else the language kind."""
    if prefix == "python":
        return _python_kind(data, lines, key[1], spans)
    if prefix == "rust" and key[0] == "impl" and ".impl#" in key[1]:
        return "inherent impl blocks"
    if prefix == "go" and key == ("function", "init"):
        return "init functions"
    return key[0]


def score(source: Path, count: int, sample: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="uniqueness-") as tmp:
        path = source
        if source.is_file():  # a bundle
            path = Path(tmp) / source.stem
            subprocess.run(["git", "clone", "-q", "--bare", str(source), str(path)],
                           check=True)
        repo = pygit2.Repository(str(path))
        versions = _versions(repo, path, count)
        read: Counter[str] = Counter()
        unread: Counter[str] = Counter()
        shared: dict[str, list[str]] = defaultdict(list)
        grouped: Counter[str] = Counter()
        for (oid, _suffix), name in sorted(versions.items()):
            lang = language_of(name)
            assert lang is not None
            data = repo[oid].read_raw()
            found: FileEntities | None = lang.read(data)
            if found is None:
                unread[lang.name] += 1
                continue
            read[lang.name] += 1
            many = {key: n for key, n in found.counts.items() if n > 1}
            if not many:
                continue
            groups = overload_groups(data, name) if lang.prefix == "ts" else set()
            lines = data.decode("utf-8", "replace").split("\n")
            for key, n in sorted(many.items()):
                spans = next(e.spans for e in found.entities if e.key == key)
                what = ("overloads or get/set" if key in groups
                        else _kind(lang.prefix, key, data, lines, spans))
                if key in groups or what in _DOCUMENTED:
                    grouped[f"{lang.name}: {what}"] += 1
                    continue
                shared[f"{lang.name}: {what}"].append(
                    f"{oid[:10]} {name} {key[0]} {key[1]} x{n} at {[s[0] for s in spans]}")
        rng = random.Random(0)
        return {
            "corpus": source.stem, "commits": count, "file_versions_read": dict(read),
            "unreadable": dict(unread), "documented_groups": dict(grouped),
            "shared": {k: len(v) for k, v in sorted(shared.items())},
            "shared_total": sum(len(v) for v in shared.values()),
            "sample": {k: rng.sample(v, min(sample, len(v))) for k, v in sorted(shared.items())},
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--sample", type=int, default=4)
    args = parser.parse_args()
    sources = args.sources or sorted(CORPORA.glob("*.bundle"))
    results = []
    for source in sources:
        result = score(source, args.commits, args.sample)
        results.append(result)
        print(f"== {result['corpus']}: read {result['file_versions_read']} "
              f"(unreadable {result['unreadable']}); documented groups "
              f"{result['documented_groups']}; shared locators {result['shared_total']}")
        for what, n in result["shared"].items():
            print(f"   {n:6}  {what}")
            for line in result["sample"][what]:
                print(f"            {line}")
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_uniqueness.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
