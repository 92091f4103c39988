"""A deterministic flat Python repository with a real cross-module call graph, for
bench_graph.py: ``app/pkgNN/modNNNN.py`` modules that import a few earlier modules and call
into them, a class per module, and ``tests/test_modNNNN.py`` for every tenth module.

Flat layout (no ``src/``) so loomweave resolves every call without configuration. The
second commit edits one function body in each of ``changed`` modules: the seeds of the
re-verify measurement (``HEAD~1..HEAD``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pygit2

FUNCTIONS = 10
PER_PACKAGE = 50


def module_name(i: int) -> tuple[str, str]:
    """(dotted, path) of module ``i``."""
    pkg = f"pkg{i // PER_PACKAGE:02d}"
    return f"app.{pkg}.mod{i:04d}", f"app/{pkg}/mod{i:04d}.py"


def render_module(i: int, deps: list[int], rng: random.Random, bump: int = 0) -> str:
    lines = []
    for n, dep in enumerate(deps):
        dotted, _ = module_name(dep)
        package, mod = dotted.rsplit(".", 1)
        lines.append(f"from {package} import {mod} as dep{n}")
    lines += ["", "", f"class Thing{i:04d}:", "    def run(self, x):",
              f"        return self.step(x) + f{rng.randrange(FUNCTIONS)}(x)", "",
              "    def step(self, x):"]
    lines.append(f"        return dep0.f{rng.randrange(FUNCTIONS)}(x)" if deps
                 else "        return x")
    for f in range(FUNCTIONS):
        calls = [f"f{g}(x)" for g in range(f + 1, FUNCTIONS) if rng.random() < 0.3][:2]
        calls += [f"dep{n}.f{rng.randrange(FUNCTIONS)}(x)" for n in range(len(deps))
                  if rng.random() < 0.7]
        body = " + ".join(calls) or "x"
        extra = f" + {bump}" if bump and f == 0 else ""
        lines += ["", "", f"def f{f}(x):", f"    return {body}{extra}"]
    return "\n".join(lines) + "\n"


def render_test(i: int) -> str:
    dotted, _ = module_name(i)
    package, mod = dotted.rsplit(".", 1)
    return (f"from {package} import {mod}\n\n\n"
            f"def test_f0():\n    assert {mod}.f0(1) is not None\n\n\n"
            f"class TestThing:\n    def test_run(self):\n"
            f"        assert {mod}.Thing{i:04d}().run(1) is not None\n")


def _commit(repo: pygit2.Repository, files: dict[str, str], message: str, when: int) -> str:
    index = pygit2.Index()
    if not repo.head_is_unborn:
        index.read_tree(repo.head.peel(pygit2.Tree))
    for path, text in files.items():
        index.add(pygit2.IndexEntry(path, repo.create_blob(text.encode()),
                                    pygit2.enums.FileMode.BLOB))
    tree = index.write_tree(repo)
    sig = pygit2.Signature("Bench", "bench@example.com", when, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]
    oid = repo.create_commit("refs/heads/main", sig, sig, message, tree, parents)
    return str(oid)


def generate(out: Path, modules: int = 2000, changed: int = 10, seed: int = 0) -> str:
    """Write the repository; return HEAD's sha."""
    repo = pygit2.init_repository(str(out), bare=False, initial_head="main")
    rng = random.Random(seed)
    deps = [sorted(rng.sample(range(i), min(i, rng.randint(2, 4)))) if i else []
            for i in range(modules)]
    files: dict[str, str] = {"app/__init__.py": ""}
    for i in range(modules):
        _, path = module_name(i)
        files.setdefault(path.rsplit("/", 1)[0] + "/__init__.py", "")
        files[path] = render_module(i, deps[i], random.Random(seed * 7919 + i))
        if i % 10 == 0:
            files[f"tests/test_mod{i:04d}.py"] = render_test(i)
    _commit(repo, files, "generated", 1_750_000_000)
    edits = {}
    for i in sorted(rng.sample(range(modules), changed)):
        _, path = module_name(i)
        edits[path] = render_module(i, deps[i], random.Random(seed * 7919 + i), bump=1)
    head = _commit(repo, edits, "edit", 1_750_000_060)
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)  # type: ignore[no-untyped-call]
    return head
