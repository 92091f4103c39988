"""Rust's built-in edges against rust-analyzer's resolution and loomweave's Rust plugin.

    python bench/bench_rust_edges.py REPO [--scope 'crates/'] [--show 20] [--lsif FILE]
        [--no-loomweave]
    python bench/bench_rust_edges.py --tiny      # a small workspace, in a temp repo

For a clone of a cargo workspace at HEAD:

* **rust-analyzer** (``rust-analyzer lsif REPO``, the rustup component; it expands macros
  and infers types as rustc does) gives, for every name in the code, the definition it
  resolves to. Each reference in a ``src/`` file of the scope becomes an edge from the
  definition around it (warpline's own entity owning that line: the ids are loomweave's,
  checked elsewhere) to the definition whose name the answer points at (an item: a
  function, method, trait method, struct, enum, union, trait, type alias, const, static
  or macro; fields, variants, locals and modules are not definitions here). ``calls``
  when the name is called (a call's function, a method call's name, a macro's name) and
  the target is a function or macro; ``references`` otherwise.
* **loomweave** (``loomweave analyze``, its Rust plugin, its own parser): its
  ``calls``/``references`` edges between the same definitions.

warpline's capture (``capture_builtin``) is scored against each: precision and recall of
its certain edges (confidence ``resolved``) as ``(source, target, kind)`` and ignoring
the kind; its ``candidate`` edges counted apart (with how many the truth holds);
disagreements listed for reading (bench/README.md classifies them); and the capture's
cost: its CPU time against reading every ``.rs`` blob in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pygit2

from warpline.graph.builtin import capture_builtin, source_blobs
from warpline.graph.builtin.rust_scan import parser_and_query
from warpline.graph.builtin.treefiles import CommitFiles as TreeFiles
from warpline.lang import RUST
from warpline.lang.rust import module_name, read

Edge = tuple[str, str, str]
_ITEMS = {"function_item", "function_signature_item", "struct_item", "enum_item",
          "union_item", "trait_item", "type_item", "const_item", "static_item",
          "macro_definition"}
_CALLABLE = ("rust:function:", "rust:macro:")


def lsif_of(repo: Path, out: Path) -> Path:
    with out.open("wb") as sink:
        subprocess.run(["rust-analyzer", "lsif", str(repo)], stdout=sink,
                       stderr=subprocess.DEVNULL, check=True, timeout=3600)
    return out


class Files:
    """A commit's ``.rs`` files: trees, owners by line, module names."""

    def __init__(self, repo: pygit2.Repository) -> None:
        commit = repo.head.peel(pygit2.Commit)
        self.tree_files = TreeFiles(commit)
        self.blobs = dict(source_blobs(commit).get("rust", []))
        self.parser = parser_and_query()[0]
        self._cache: dict[str, Any] = {}

    def info(self, path: str) -> Any:
        if path not in self._cache:
            content = self.blobs.get(path)
            module = module_name(path, self.tree_files) if content is not None else None
            defs = read(content) if content is not None and module else None
            if defs is None or content is None or module is None:
                self._cache[path] = None
            else:
                self._cache[path] = (module, defs.paint(1, defs.line_count),
                                     self.parser.parse(content), content)
        return self._cache[path]

    def owner(self, path: str, line: int) -> str | None:
        found = self.info(path)
        if found is None or not 1 <= line <= len(found[1]):
            return None
        return RUST.locator(found[1][line - 1], found[0])

    def node(self, path: str, line: int, col: int) -> Any:
        found = self.info(path)
        if found is None:
            return None
        tree, content = found[2], found[3]
        lines = content.split(b"\n")
        if line >= len(lines):
            return None
        # LSIF columns are UTF-16 units; ripgrep's code is ASCII where names are.
        return tree.root_node.named_descendant_for_point_range((line, col), (line, col))

    def definition(self, path: str, line: int, col: int) -> str | None:
        """The entity whose name is at ``line``/``col`` (0-based), or None."""
        node = self.node(path, line, col)
        if node is None or node.parent is None or node.parent.type not in _ITEMS:
            return None
        if node.parent.child_by_field_name("name") != node:
            return None
        return self.owner(path, line + 1)


def _called(node: Any) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "token_tree":  # inside a macro's arguments: `f(`, `x.m(`, `T::f(`
        after = node.next_sibling
        return bool(after is not None and after.type == "token_tree"
                    and after.text[:1] == b"(")
    if parent.type == "scoped_identifier" and parent.child_by_field_name("name") == node:
        node, parent = parent, parent.parent
    elif parent.type == "field_expression" and parent.child_by_field_name("field") == node:
        node, parent = parent, parent.parent
    if parent is not None and parent.type == "generic_function":
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "call_expression" and parent.child_by_field_name("function") == node:
        return True
    return bool(parent.type == "macro_invocation"
                and parent.child_by_field_name("macro") == node)


def truth_from_lsif(lsif: Path, repo: Path, files: Files, scope: str,
                    seen: set[str] | None = None) -> set[Edge]:
    """The truth's edges; ``seen`` collects every definition holding a name the truth
    answered for (code a ``cfg`` leaves out of its build holds none)."""
    ranges: dict[int, tuple[int, int]] = {}
    docs: dict[int, str] = {}
    range_doc: dict[int, int] = {}
    nxt: dict[int, int] = {}
    defres: dict[int, int] = {}
    items: dict[int, list[int]] = defaultdict(list)
    root = str(repo.resolve())
    with lsif.open() as handle:
        for raw in handle:
            row = json.loads(raw)
            label = row.get("label")
            if row.get("type") == "vertex":
                if label == "range":
                    ranges[row["id"]] = (row["start"]["line"], row["start"]["character"])
                elif label == "document":
                    path = unquote(urlparse(row["uri"]).path)
                    docs[row["id"]] = os.path.relpath(path, root)
            elif label == "contains":
                for v in row.get("inVs", []):
                    range_doc[v] = row["outV"]
            elif label == "next":
                nxt[row["outV"]] = row["inV"]
            elif label == "textDocument/definition":
                defres[row["outV"]] = row["inV"]
            elif label == "item":
                items[row["outV"]].extend(row.get("inVs", []))
                for v in row.get("inVs", []):
                    range_doc.setdefault(v, row.get("document", row.get("shard", -1)))
    edges: set[Edge] = set()
    for rid, (line, col) in ranges.items():
        path = docs.get(range_doc.get(rid, -1), "")
        if not path.startswith(scope) or "/src/" not in f"/{path}":
            continue
        if seen is not None:
            owner = files.owner(path, line + 1)
            if owner is not None:
                seen.add(owner)
        result = defres.get(nxt.get(rid, -1), -1)
        targets = items.get(result, [])
        if not targets or rid in targets:
            continue  # a definition itself, or a name with no answer
        source = files.owner(path, line + 1)
        node = files.node(path, line, col)
        if source is None or node is None or source.startswith("rust:module:"):
            continue
        for target_range in targets:
            tpath = docs.get(range_doc.get(target_range, -1), "")
            if not tpath.startswith(scope) or "/src/" not in f"/{tpath}":
                continue
            tline, tcol = ranges[target_range]
            target = files.definition(tpath, tline, tcol)
            if target is None or target == source:
                continue
            kind = "calls" if target.startswith(_CALLABLE) and _called(node) else "references"
            edges.add((source, target, kind))
    return edges


def loomweave_edges(repo: Path, scratch: Path, scope: str,
                    entities: dict[str, str]) -> set[Edge] | None:
    if shutil.which("loomweave") is None or shutil.which("loomweave-plugin-rust") is None:
        return None
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home)}
    subprocess.run(["loomweave", "install", "--path", str(repo)], env=env, check=True,
                   capture_output=True, timeout=300)
    subprocess.run(["loomweave", "analyze", "--no-sei", str(repo)], env=env, check=True,
                   capture_output=True, timeout=3600, cwd=repo)
    db = sqlite3.connect(repo / ".weft" / "loomweave" / "loomweave.db")
    rows = db.execute("select kind, from_id, to_id from edges where kind in "
                      "('calls', 'references')").fetchall()
    db.close()
    return {(s, t, k) for k, s, t in rows
            if _in_scope(entities.get(s), scope) and _in_scope(entities.get(t), scope)
            and not s.startswith("rust:module:") and not t.startswith("rust:module:")}


def _in_scope(path: str | None, scope: str) -> bool:
    return path is not None and path.startswith(scope) and "/src/" in f"/{path}"


def _score(ours: set[Edge], truth: set[Edge]) -> dict[str, Any]:
    hit = len(ours & truth)
    loose_ours = {(s, t) for s, t, _ in ours}
    loose_truth = {(s, t) for s, t, _ in truth}
    loose = len(loose_ours & loose_truth)
    return {
        "ours": len(ours), "truth": len(truth), "both": hit,
        "precision": round(hit / len(ours), 4) if ours else None,
        "recall": round(hit / len(truth), 4) if truth else None,
        "precision_any_kind": round(loose / len(loose_ours), 4) if loose_ours else None,
        "recall_any_kind": round(loose / len(loose_truth), 4) if loose_truth else None,
        "by_kind": {k: {"ours": sum(1 for e in ours if e[2] == k),
                        "truth": sum(1 for e in truth if e[2] == k),
                        "both": sum(1 for e in ours & truth if e[2] == k)}
                    for k in ("calls", "references")},
    }


def score(repo_path: Path, scratch: Path, scope: str, lsif: Path | None, show: int,
          with_loomweave: bool) -> dict[str, Any]:
    repo = pygit2.Repository(str(repo_path))
    commit = repo.head.peel(pygit2.Commit)
    start = time.process_time()
    blobs = source_blobs(commit).get("rust", [])
    bound = time.process_time() - start
    start = time.process_time()
    capture = capture_builtin(repo, commit)
    cost = time.process_time() - start
    entities = {e.locator: e.path for e in capture.entities}
    ours_all: dict[Edge, str | None] = {
        (e.source_locator, e.target_locator, str(e.kind)): e.confidence
                for e in capture.edges
                if _in_scope(entities.get(e.source_locator), scope)
                and _in_scope(entities.get(e.target_locator), scope)
                and not e.source_locator.startswith("rust:module:")
                and not e.target_locator.startswith("rust:module:")}
    certain = {e for e, c in ours_all.items() if c == "resolved"}
    candidates = {e for e, c in ours_all.items() if c != "resolved"}
    files = Files(repo)
    lsif_file = lsif or lsif_of(repo_path, scratch / "index.lsif")
    seen: set[str] = set()
    truth = truth_from_lsif(lsif_file, repo_path, files, scope, seen)
    # Code the truth's build leaves out (a `cfg` false on this platform or with default
    # features) holds no name it answered for: its edges are not the truth's to judge.
    judged = {e for e in certain if e[0] in seen and e[1] in seen}
    report: dict[str, Any] = {
        "repo": repo_path.name, "commit": str(commit.id)[:12], "files": len(blobs),
        "capture_cpu_s": round(cost, 3), "read_blobs_cpu_s": round(bound, 3),
        "edges_in_scope": len(ours_all), "unresolved": capture.unresolved,
        "rust_analyzer": _score(certain, truth),
        "rust_analyzer_net_of_cfg": _score(judged, truth),
        "outside_the_truths_build": len(certain - judged),
        "candidates": {"edges": len(candidates), "in_truth": len(candidates & truth)},
        "with_candidates": _score(certain | candidates, truth),
        "missed": sorted(truth - certain)[:show], "extra": sorted(certain - truth)[:show],
        "missed_count": len(truth - certain), "extra_count": len(certain - truth),
    }
    if with_loomweave:
        theirs = loomweave_edges(repo_path, scratch, scope, entities)
        if theirs is not None:
            report["loomweave"] = _score(certain, theirs)
            report["loomweave_vs_rust_analyzer"] = _score(theirs, truth)
            report["loomweave_missed"] = sorted(theirs - certain)[:show]
    return report


TINY = {
    "Cargo.toml": '[workspace]\nmembers = ["a", "b"]\n',
    "a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n',
    "a/src/lib.rs": ("pub mod shape;\nuse crate::shape::{Area, Square};\n\n"
                     "pub fn total(s: &Square) -> u32 {\n    s.area() + helper()\n}\n\n"
                     "fn helper() -> u32 {\n    1\n}\n\n"
                     "pub fn any_area(a: &dyn Area) -> u32 {\n    a.area()\n}\n"),
    "a/src/shape.rs": ("pub trait Area {\n    fn area(&self) -> u32;\n}\n\n"
                       "pub struct Square {\n    pub side: u32,\n}\n\n"
                       "impl Square {\n    pub fn new(side: u32) -> Self {\n"
                       "        Square { side }\n    }\n}\n\n"
                       "impl Area for Square {\n    fn area(&self) -> u32 {\n"
                       "        self.side * self.side\n    }\n}\n"),
    "b/Cargo.toml": ('[package]\nname = "b"\nversion = "0.1.0"\nedition = "2021"\n\n'
                     '[dependencies]\na = { path = "../a" }\n'),
    "b/src/lib.rs": ("use a::shape::Square;\n\npub fn run() -> u32 {\n"
                     "    let s = Square::new(2);\n    a::total(&s)\n}\n"),
}


def tiny_repo(root: Path) -> Path:
    for path, body in TINY.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
    for argv in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tiny"]):
        subprocess.run(["git", *argv], cwd=root, check=True)
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", nargs="?")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--scope", default="", help="path prefix of the files scored")
    parser.add_argument("--lsif", help="an LSIF dump of the repository already made")
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--no-loomweave", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("rust-analyzer") is None:
        print("rust-analyzer is not installed (rustup component add rust-analyzer)")
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        repo = tiny_repo(Path(scratch) / "tiny") if args.tiny else Path(args.repo)
        report = score(repo, Path(scratch), args.scope,
                       Path(args.lsif) if args.lsif else None, args.show,
                       not args.no_loomweave)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
