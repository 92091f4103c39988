"""What happens in each commit of the synthetic project: the kinds of change and their odds."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pygit2
from _gen_files import EXEC, FileEntry, edit_model, make, new_doc, paragraph, sentence
from _gen_lines import Line, Lines
from _gen_python import NOUNS, VERBS, new_module

SUBPACKAGES = ("core", "io", "utils", "cli", "model", "net", "storage", "plugins", "compat",
               "render", "config", "events")
PKG_NAMES = ("tessel", "quarry", "lumen", "corvid", "harbor", "mosaic", "tangle", "cinder")


def commit_size(rng: random.Random) -> int:
    """Files per ordinary commit: mostly 1-3, some 10-40, rarely a huge sweep."""
    r = rng.random()
    if r < 0.55:
        return 1
    if r < 0.75:
        return 2
    if r < 0.85:
        return 3
    if r < 0.95:
        return rng.randint(4, 9)
    if r < 0.993:
        return rng.randint(10, 40)
    return rng.randint(60, 200)


def module_lines(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.15:
        return rng.randint(5, 30)
    if r < 0.6:
        return rng.randint(40, 200)
    return rng.randint(200, 900)


class History:
    def __init__(self, repo: pygit2.Repository, seed: int, commits: int, modules: int) -> None:
        self.repo = repo
        self.rng = rng = random.Random(seed)
        self.commits = commits
        self.lines = Lines(repo, rng)
        self.stats = self.lines.stats
        self.pkg = rng.choice(PKG_NAMES)
        self.subs: list[str] = []
        self.paths: set[str] = set()  # every path ever used: new paths never collide
        self.weight: dict[str, float] = {}  # edit hotness; a few files take most edits
        self.test_of: dict[str, str] = {}
        self.fix_due: str | None = None
        self.modules = modules
        n_long = max(1, round(modules / 40))
        self.long_at = sorted(rng.sample(range(2, commits), min(n_long - 1, max(0, commits - 2))))
        # Events every history gets at least once, however short: (due index, event).
        # An event that cannot happen at its index (a merge step, no candidate) stays owed.
        self.owed = [(max(2, commits // 5), "fork"), (commits // 3, "rename"),
                     (commits // 2, "delete"), ((3 * commits) // 5, "broken"),
                     ((2 * commits) // 3, "rename")]

    # -- helpers ------------------------------------------------------------------------
    def claim(self, path: str) -> str:
        stem, dot, ext = path.rpartition(".")
        n, candidate = 2, path
        while candidate in self.paths:
            candidate, n = f"{stem}_{n}{dot}{ext}", n + 1
        self.paths.add(candidate)
        return candidate

    def new(self, path: str, kind: str, model: Any, mode: int = 0o100644,
            hot: float = 1.0) -> tuple[str, FileEntry]:
        path = self.claim(path)
        self.weight[path] = self.rng.paretovariate(1.2) * hot
        self.stats.added_files += 1
        return path, make(self.repo, kind, model, mode)

    def new_module(self, sub: str, lines: int, *, test: bool, hot: float = 1.0
                   ) -> dict[str, FileEntry | None]:
        rng = self.rng
        name = rng.choice((f"{rng.choice(NOUNS)}s", f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"))
        out: dict[str, FileEntry | None] = {}
        path, entry = self.new(f"src/{self.pkg}/{sub}/{name}.py", "py",
                               new_module(rng, lines), hot=hot)
        out[path] = entry
        if test:
            tpath, tentry = self.new(f"tests/test_{name}.py", "py",
                                     new_module(rng, rng.randint(20, 300), test=True))
            out[tpath] = tentry
            self.test_of[path] = tpath
        return out

    def new_sub(self) -> dict[str, FileEntry | None]:
        free = [s for s in SUBPACKAGES if s not in self.subs]
        sub = self.rng.choice(free) if free else f"ext{len(self.subs)}"
        self.subs.append(sub)
        path, entry = self.new(f"src/{self.pkg}/{sub}/__init__.py", "py",
                               new_module(self.rng, self.rng.randint(3, 25)))
        return {path: entry}

    def pick(self, line: Line, n: int, *, py_src: bool = False, uniform: bool = False
             ) -> list[str]:
        banned = self.lines.forbidden(line)
        cands = [p for p, e in line.files.items() if p not in banned and e.kind != "bin"
                 and (not py_src or (p.startswith("src/") and not p.endswith("__init__.py")))]
        if not cands:
            return []
        if n >= len(cands):
            return cands
        weights = None if uniform else [self.weight.get(p, 1.0) for p in cands]
        chosen = self.rng.choices(cands, weights, k=n * 2)
        return list(dict.fromkeys(chosen))[:n]

    # -- kinds of commit ----------------------------------------------------------------
    def initial(self) -> None:
        rng, pkg = self.rng, self.pkg
        files: dict[str, FileEntry | None] = {}
        for path, kind, model in (
            ("README.md", "md", new_doc(rng, pkg)),
            ("CHANGELOG.md", "md", ("# Changelog", "## 0.1.0", "- First release.")),
            ("pyproject.toml", "toml", ("0.1.0", ("attrs>=21.0",), pkg)),
            (".gitignore", "lines", ("__pycache__/", "*.egg-info/", "build/", "dist/")),
            ("docs/index.md", "md", new_doc(rng, f"{pkg} documentation")),
            ("docs/usage.md", "md", new_doc(rng, "Usage")),
            ("docs/img/logo.png", "bin", rng.randrange(1 << 30)),
            (f"src/{pkg}/__init__.py", "py", new_module(rng, 12)),
        ):
            files.update([self.new(path, kind, model)])
        files.update([self.new("scripts/release.sh", "lines", ("#!/bin/sh", "set -eu"), EXEC)])
        for _ in range(3):
            files.update(self.new_sub())
        for i in range(max(3, self.modules // 6)):
            files.update(self.new_module(self.subs[i % 3], module_lines(rng),
                                         test=rng.random() < 0.6))
        files.update(self.new_module(self.subs[0], rng.randint(2000, 4000), test=True, hot=4.0))
        self.lines.commit(self.lines.main, files, f"Initial import of {pkg}")

    def step(self, index: int) -> None:
        lines, rng = self.lines, self.rng
        left = self.commits - index
        due = [b for b in lines.branches if b.remaining <= 0]
        if due or (lines.branches and left <= len(lines.branches)):
            return self.merge((due or lines.branches)[0])
        if self.fix_due is not None:
            return self.fix(self.fix_due)
        forced = self.owed.pop(0)[1] if self.owed and self.owed[0][0] <= index else None
        line = lines.main
        if forced == "fork" or (len(lines.branches) < 3 and left > 3 and rng.random() < 0.06):
            line = lines.fork(f"feature/{rng.choice(VERBS)}-{rng.choice(NOUNS)}-{index}")
        elif lines.branches and rng.random() < 0.5:
            line = rng.choice(lines.branches)
        if line is not lines.main:
            line.remaining -= 1
        r = rng.random()
        n_src = sum(1 for p in lines.main.files if p.startswith("src/"))
        p_add = min(0.3, max(0.004, (self.modules - n_src) / left))
        done = True
        if forced == "delete" or (forced is None and r < 0.006):
            done = self.delete(line)
        elif forced == "rename" or (forced is None and r < 0.015):
            done = self.rename(line)
        elif self.long_at and self.long_at[0] <= index:  # (a merge step may have delayed it)
            del self.long_at[0]
            sub = rng.choice(self.subs)
            self.lines.commit(line, self.new_module(sub, rng.randint(2000, 4000), test=True,
                                                    hot=4.0), f"Import the legacy {sub} engine")
            done = forced != "broken"
        elif forced != "broken" and r < 0.015 + p_add:
            files = self.new_sub() if rng.random() < 0.08 or not self.subs else {}
            files.update(self.new_module(rng.choice(self.subs), module_lines(rng),
                                         test=rng.random() < 0.6))
            self.lines.commit(line, files, f"Add {', '.join(p.split('/')[-1] for p in files)}")
        elif forced != "broken" and r < 0.023 + p_add and line is lines.main:
            self.release()
        else:  # only main breaks: its next commit is the fix
            broken = line is lines.main and (forced == "broken" or rng.random() < 0.002)
            done = self.edit(line, commit_size(rng), broken=broken) or forced != "broken"
        if forced is not None and not done:
            self.owed.insert(0, (index + 1, forced))

    def edit(self, line: Line, n: int, *, broken: bool = False) -> bool:
        """An ordinary change to ``n`` files; True when ``broken`` was applied to one."""
        rng = self.rng
        paths = self.pick(line, n)
        sweep = n >= 60
        changes: dict[str, FileEntry | None] = {}
        whats: list[str] = []
        for path in paths:
            entry = line.files[path]
            test = self.test_of.get(path)
            if (test in line.files and test not in paths and rng.random() < 0.35
                    and test not in self.lines.forbidden(line)):
                paths.append(test)  # the test that goes with the change
            model = entry.model
            for _ in range(1 if sweep else rng.choice((1, 1, 1, 1, 1, 2, 2, 3))):
                model, what = edit_model(rng, path, entry.kind, model, sweep=sweep,
                                         lines=entry.lines)
                whats.append(what)
            if broken and entry.kind == "py" and self.fix_due is None:
                model, self.fix_due = replace(model, broken=True), path
            changes[path] = make(self.repo, entry.kind, model, entry.mode)
        if not changes:  # everything is claimed by other branches: start something new
            changes = self.new_module(rng.choice(self.subs), module_lines(rng), test=False)
            whats = ["add module"]
        subject = "Reformat the code base" if sweep else whats[0].capitalize()
        if len(changes) > 3 and not sweep:
            subject += f" and {len(changes) - 1} more {rng.choice(NOUNS)} changes"
        body = f"\n\n{paragraph(rng)}\n" if rng.random() < 0.3 else "\n"
        self.lines.commit(line, changes, subject + body)
        return self.fix_due is not None

    def fix(self, path: str) -> None:
        entry = self.lines.main.files[path]
        model = replace(entry.model, broken=False)
        self.fix_due = None
        self.lines.commit(self.lines.main, {path: make(self.repo, "py", model)},
                          f"Remove a stray conflict marker from {path.split('/')[-1]}\n")

    def merge(self, branch: Line) -> None:
        rng = self.rng
        resolve = None
        edited = [p for p in branch.touched if (e := branch.files.get(p)) and e.kind == "py"]
        if edited and rng.random() < 0.2:
            path = rng.choice(edited)
            model, _ = edit_model(rng, path, "py", branch.files[path].model)
            resolve = (path, make(self.repo, "py", model))
        title = f"Merge branch '{branch.name}'"
        if rng.random() < 0.6:
            title = f"Merge pull request #{rng.randint(10, 9999)} from {branch.name}"
        self.lines.merge(branch, resolve, title + ("\n\nResolve conflicts.\n" if resolve else "\n"))

    def rename(self, line: Line) -> bool:
        rng = self.rng
        paths = self.pick(line, 1 if rng.random() < 0.7 else rng.randint(2, 6), py_src=True,
                          uniform=True)
        changes: dict[str, FileEntry | None] = {}
        target = rng.choice(self.subs)
        for old in paths:
            entry = line.files[old]
            stem = old.rsplit("/", 1)[1]
            if len(paths) == 1 and rng.random() < 0.5:
                stem = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}.py"
            new = self.claim(f"src/{self.pkg}/{target}/{stem}")
            if rng.random() < 0.4:
                entry = make(self.repo, "py", edit_model(rng, old, "py", entry.model)[0])
            changes[old], changes[new] = None, entry
            self.weight[new] = self.weight.pop(old, 1.0)
            if old in self.test_of:
                self.test_of[new] = self.test_of.pop(old)
            self.stats.renames += 1
        if not changes:
            self.edit(line, 1)
            return False
        self.lines.commit(line, changes, f"Move {len(paths)} module(s) into {target}\n")
        return True

    def delete(self, line: Line) -> bool:
        candidates = [p for p in self.pick(line, 3, py_src=True)
                      if line.files[p].lines < 1500]  # keep the long modules
        if not candidates:
            self.edit(line, 1)
            return False
        path = candidates[0]
        changes: dict[str, FileEntry | None] = {path: None}
        test = self.test_of.pop(path, None)
        if test in line.files and test not in self.lines.forbidden(line):
            changes[test] = None
        self.stats.deletions += len(changes)
        self.lines.commit(line, changes, f"Remove the unused {path.split('/')[-1]}\n")
        return True

    def release(self) -> None:
        main, rng = self.lines.main, self.rng
        banned = self.lines.forbidden(main)
        if {"pyproject.toml", "CHANGELOG.md", "docs/img/logo.png"} & banned:
            self.edit(main, 1)
            return
        toml = main.files["pyproject.toml"]
        version = toml.model[0].split(".")
        version[-1] = str(int(version[-1]) + 1)
        model = (".".join(version), toml.model[1], toml.model[2])
        log = main.files["CHANGELOG.md"].model
        log = (log[0], f"## {model[0]}", f"- {sentence(rng)}", *log[1:])
        changes: dict[str, FileEntry | None] = {
            "pyproject.toml": make(self.repo, "toml", model),
            "CHANGELOG.md": make(self.repo, "md", log),
        }
        if rng.random() < 0.3:
            changes["docs/img/logo.png"] = make(self.repo, "bin", rng.randrange(1 << 30))
        self.lines.commit(main, changes, f"Release {model[0]}\n")
