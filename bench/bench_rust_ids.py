"""warpline's Rust ids against loomweave-plugin-rust's on one repository at HEAD.

    python bench/bench_rust_ids.py REPO [--src-regex 'crates/[^/]+/src/']

Runs ``loomweave install`` + ``loomweave analyze --no-sei`` in REPO (with HOME pointed
at a temporary directory: install writes outside the repository), then compares every
``rust:`` id loomweave emits for files matching the regex with warpline's entities of
the same files (warpline's '~' extension ids and ``union`` items aside: loomweave has no
counterpart), and the first and last line of each definition found once.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pygit2

from warpline.lang.rust import module_name, read
from warpline.lang.snapshot import tree_locators


def loomweave_ids(repo: Path) -> tuple[dict[str, tuple[str, int | None, int | None]],
                                       set[str]]:
    """loomweave's ``rust:`` ids (file, first and last line) and the files its parser
    (syn) could not read (``LMWV-RUST-SYNTAX-ERROR``: 2015-edition code using ``async`` as
    a name, in ripgrep's older history): it emits nothing for those, so they are left
    out of the comparison and counted."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HOME": home}
        subprocess.run(["loomweave", "install", "--path", str(repo)], env=env, check=True,
                       capture_output=True, timeout=600)
        subprocess.run(["loomweave", "analyze", "--no-sei", str(repo)], env=env, check=True,
                       capture_output=True, timeout=3600, cwd=repo)
    db = sqlite3.connect(f"file:{repo / '.weft/loomweave/loomweave.db'}?mode=ro", uri=True)
    try:
        ids = {row[0]: (row[1] or "", row[2], row[3]) for row in db.execute(
            "select id, source_file_id, source_line_start, source_line_end from entities"
            " where plugin_id = 'rust'")}
        unread = {str(row[0]).removeprefix("core:file:") for row in db.execute(
            "select entity_id from findings where rule_id = 'LMWV-RUST-SYNTAX-ERROR'")}
        return ids, unread
    finally:
        db.close()


class _TreeFiles:
    def __init__(self, repo: pygit2.Repository, tree: pygit2.Tree) -> None:
        self.repo, self.tree = repo, tree

    def read(self, path: str) -> bytes | None:
        try:
            entry = self.tree[path]
        except KeyError:
            return None
        blob = self.repo[entry.id]
        return bytes(memoryview(blob)) if isinstance(blob, pygit2.Blob) else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--src-regex", default=r"(crates/[^/]+/)?src/")
    args = parser.parse_args(argv)
    if shutil.which("loomweave") is None or shutil.which("loomweave-plugin-rust") is None:
        print("loomweave and loomweave-plugin-rust are not installed: nothing to compare",
              file=sys.stderr)
        return 1
    wanted = re.compile(args.src_regex)
    repo = pygit2.Repository(str(args.repo))
    tree = repo.head.peel(pygit2.Commit).tree
    ids, unread = loomweave_ids(args.repo)
    theirs = {k: v for k, v in ids.items() if wanted.match(v[0].removeprefix("core:file:"))
              and v[0].removeprefix("core:file:") not in unread}
    ours_all = {loc: path for loc, path in
                tree_locators(repo, tree, lambda p: wanted.match(p) is not None).items()
                if loc.startswith("rust:") and path not in unread}
    extension = {loc for loc in ours_all if "~" in loc or loc.startswith("rust:union:")}
    ours = set(ours_all) - extension
    spans_differ: list[str] = []
    files = _TreeFiles(repo, tree)
    for path in sorted(set(ours_all.values())):
        blob = files.read(path)
        module = module_name(path, files)
        parsed = read(blob) if blob is not None else None
        if parsed is None or module is None:
            continue
        for entity in parsed.entities:
            loc = f"rust:{entity.kind}:{module}" + (f".{entity.qualname}"
                                                    if entity.qualname else "")
            if loc in theirs and entity.kind != "module" and len(entity.spans) == 1 \
                    and entity.spans[0] != theirs[loc][1:]:
                spans_differ.append(f"{loc} {entity.spans[0]} vs {theirs[loc][1:]}")
    report = {"loomweave": len(theirs), "warpline": len(ours), "extension": len(extension),
              "cfg_ids": sum(1 for loc in ours if "@cfg(" in loc),
              "files_loomweave_could_not_parse": sorted(p for p in unread
                                                        if wanted.match(p)),
              "only_warpline": sorted(ours - set(theirs)),
              "only_loomweave": sorted(set(theirs) - ours), "spans_differ": spans_differ}
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0 if not (report["only_warpline"] or report["only_loomweave"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
