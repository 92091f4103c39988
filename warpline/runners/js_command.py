"""One shell command running exactly a set of JavaScript test ids, in the runner's syntax.

Ids: ``<file>`` (the whole file) or ``<file>::<suite> > … > <test>`` (a statically named
test), files repo-relative. Per package (``(cd pkg && …)`` for a workspace package), the
package script's own environment words and options are kept (``NODE_OPTIONS=…``, mocha's
``--require``), its file arguments, name filters, watch and coverage flags dropped, then:

* ``npx jest --runTestsByPath <files> -t '^(…)$'`` (names: suites and test joined by a
  space, matched case-insensitively);
* ``npx vitest run <files> -t '^(…)$'`` (a file argument is a substring filter: another
  test file containing it gets ``--exclude``);
* ``npx mocha <options> <files> --grep '^(…)$'`` (config ``spec`` files are merged with the
  command line's by mocha: the others get ``--ignore``);
* ``npx ava <files> --match '<title>'`` (one per title; ``*`` is AVA's wildcard);
* ``node --test --test-name-pattern='^(…)$' <files>`` (Node 20 matches a test's own name,
  later versions its full name: both are in the pattern).

Whole files run in one invocation without a filter; named tests in one invocation when
the union pattern runs exactly them over the files' static tests (each runner's matching
simulated), else one invocation per file; invocations are joined with ``&&``. Where names
cannot pick exactly the chosen tests (AVA titles starting with ``!``, Node 20 leaf names
shared with other tests of the file) the command runs more of the file, never fewer, and
says so (``widened``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from warpline.runners.js_detect import JsProject, project_of
from warpline.runners.js_names import FileTests, file_tests

__all__ = ["SEPARATOR", "command_for", "names_of", "split_id"]

SEPARATOR = " > "  # between a test's suites and its name in an id
_REGEX_SPECIAL = re.compile(r"[\\^$.*+?()\[\]{}|/]")
_MAX_SOURCE = 4 << 20
_DROP = {
    "jest": ({"--coverage", "--collectCoverage", "--watch", "--watchAll", "--onlyChanged",
              "-o", "--ci", "--findRelatedTests", "--runTestsByPath", "--listTests"},
             {"-t", "--testNamePattern", "--testPathPattern", "--testPathPatterns",
              "--changedSince", "--coverageProvider", "--coverageDirectory"}),
    "vitest": ({"--coverage", "--watch", "-w", "--changed", "--run"},
               {"-t", "--testNamePattern", "--related"}),
    "mocha": ({"--watch", "-w", "--invert", "-i", "--recursive"},
              {"--grep", "-g", "--fgrep", "-f", "--spec"}),
    "ava": ({"--watch", "-w"}, {"--match", "-m"}),
    "node-test": ({"--watch", "--test", "--experimental-test-coverage"},
                  {"--test-name-pattern", "--test-skip-pattern"}),
}


def split_id(test_id: str) -> tuple[str, tuple[str, ...] | None]:
    """``(file, the test's name path)``; None for a whole-file id."""
    file, sep, rest = test_id.partition("::")
    return file, (tuple(rest.split(SEPARATOR)) if sep else None)


def names_of(root: Path, runner: str, path: str) -> FileTests | None:
    """The static tests of the work-tree file ``path`` (repo-relative), None unreadable."""
    disk = root / path
    try:
        if not disk.is_file() or disk.is_symlink() or disk.stat().st_size > _MAX_SOURCE:
            return None
        return file_tests(disk.read_bytes(), runner, path)
    except OSError:
        return None


def _regex(text: str) -> str:
    return _REGEX_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def _full(path: tuple[str, ...]) -> str:
    return " ".join(path)


def _runs(runner: str, chosen: set[tuple[str, ...]], test: tuple[str, ...]) -> bool:
    """Whether the runner's name filter built from ``chosen`` runs ``test``."""
    if runner == "jest":
        return _full(test).lower() in {_full(c).lower() for c in chosen}
    if runner in ("vitest", "mocha"):
        return _full(test) in {_full(c) for c in chosen}
    if runner == "ava":
        return any(_ava_glob(c[-1]).fullmatch(test[-1]) for c in chosen)
    wanted = {c[-1] for c in chosen} | {_full(c) for c in chosen}  # node --test
    return any(test[:i][-1] in wanted or _full(test[:i]) in wanted
               for i in range(1, len(test) + 1))


def _ava_glob(title: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in title.split("*")), re.S)


@dataclass(slots=True)
class _Plan:
    """One package's share of the ids: its whole files, and its named tests by file."""

    project: JsProject
    whole: list[str]
    named: dict[str, list[tuple[str, ...]]]


def _filter(runner: str, chosen: list[tuple[str, ...]]) -> list[str]:
    if runner == "ava":
        return [w for title in dict.fromkeys(c[-1] for c in chosen)
                for w in ("--match", title)]
    names = [_full(c) for c in chosen]
    if runner == "node-test":
        names = list(dict.fromkeys([*(c[-1] for c in chosen), *names]))
    pattern = "^(" + "|".join(_regex(n) for n in dict.fromkeys(names)) + ")$"
    flag = {"jest": "-t", "vitest": "-t", "mocha": "--grep"}.get(runner)
    return [flag, pattern] if flag else [f"--test-name-pattern={pattern}"]


def _kept_options(project: JsProject) -> list[str]:
    runner = project.runner or ""
    flags, valued = _DROP.get(runner, (set(), set()))
    out: list[str] = []
    options = list(project.call.options)
    skip = False
    for index, word in enumerate(options):
        if skip:
            skip = False
            continue
        head = word.split("=", 1)[0]
        if head in valued:
            skip = "=" not in word and index + 1 < len(options) \
                and not options[index + 1].startswith("-")
            continue
        if head in flags or head.startswith("--coverage"):
            continue
        out.append(word)
    return out


def _invocation(project: JsProject, files: list[str], chosen: list[tuple[str, ...]] | None,
                suite: list[str]) -> list[str]:
    runner = project.runner or ""
    rel = [project.relative(f) for f in files]
    others = [f for f in suite if f not in files]
    words = list(project.call.env)
    options = _kept_options(project)
    name_filter = _filter(runner, chosen) if chosen else []
    if runner == "node-test":
        return [*words, "node", *options, "--test", *name_filter, *rel]
    program = list(project.call.program) or [runner]
    if runner == "vitest":
        program = ["vitest", "run"]
    words += ["npx", *program, *options]
    if runner == "jest":
        return [*words, "--runTestsByPath", *rel, *name_filter]
    if runner == "vitest":
        excluded = [project.relative(o) for o in others
                    if any(project.relative(o).lower().find(r.lower()) >= 0 for r in rel)]
        return [*words, *rel, *(w for e in excluded for w in ("--exclude", e)), *name_filter]
    if runner == "mocha":
        ignored = [w for o in others for w in ("--ignore", project.relative(o))]
        return [*words, *rel, *ignored, *name_filter]
    return [*words, *rel, *name_filter]  # ava


def _suite(project: JsProject) -> list[str]:
    """The test files a file argument does not keep out of a run (any of Vitest's, whose
    file arguments are substring filters; those of mocha's config ``spec``, which mocha
    merges with the command line's): an invocation keeps out those it does not name."""
    from warpline.runners.js_files import mocha_specs, test_files

    runner = project.runner
    if runner == "mocha" and not mocha_specs(project)[1]:
        return []
    if runner not in ("vitest", "mocha"):
        return []
    return test_files(project)


def _plans(root: Path, runner: str, ids: Sequence[str]) -> tuple[list[_Plan], bool]:
    plans: dict[str, _Plan] = {}
    widened = False
    for test_id in ids:
        file, path = split_id(test_id)
        project = project_of(root, file)
        if project is None or project.runner != runner:
            project = JsProject(root, project.dir if project else "", runner)
        plan = plans.setdefault(project.dir, _Plan(project, [], {}))
        if path is None or (runner == "ava" and path[-1].startswith("!")):
            widened = widened or path is not None
            if file not in plan.whole:
                plan.whole.append(file)
        elif file not in plan.whole:
            plan.named.setdefault(file, [])
            if path not in plan.named[file]:
                plan.named[file].append(path)
    for plan in plans.values():
        for file in plan.whole:
            plan.named.pop(file, None)
    return list(plans.values()), widened


def _exact(root: Path, runner: str, named: dict[str, list[tuple[str, ...]]]) -> bool | None:
    """Whether one filter over all ``named`` files runs exactly the chosen tests (None:
    not even per file)."""
    chosen = {p for paths in named.values() for p in paths}
    exact: bool | None = True
    for file, paths in named.items():
        found = names_of(root, runner, file)
        if found is None:
            continue
        mine = set(paths)
        for test in found.tests:
            if test.path not in mine and _runs(runner, chosen, test.path):
                if _runs(runner, mine, test.path):
                    return None
                exact = False
    return exact


def invocations(root: Path, runner: str, ids: Sequence[str]
                ) -> tuple[list[tuple[JsProject, list[str]]], bool]:
    """The runner invocations (package, argument list) running ``ids`` in order, and
    whether they run more than them."""
    plans, widened = _plans(root, runner, ids)
    out: list[tuple[JsProject, list[str]]] = []
    for plan in plans:
        others = _suite(plan.project)
        if plan.whole:
            out.append((plan.project, _invocation(plan.project, plan.whole, None, others)))
        if plan.named:
            exact = _exact(root, runner, plan.named)
            if exact:
                out.append((plan.project, _invocation(
                    plan.project, list(plan.named),
                    [p for paths in plan.named.values() for p in paths], others)))
            else:
                widened = widened or exact is None
                for file, paths in plan.named.items():
                    out.append((plan.project, _invocation(plan.project, [file], paths, others)))
    return out, widened


def command_for(root: Path, runner: str, ids: Sequence[str]) -> tuple[str, bool]:
    """The command running ``ids`` (not empty) and whether it runs more than them."""
    found, widened = invocations(root, runner, ids)
    lines: list[str] = []
    for project, words in found:
        text = shlex.join(words)
        if project.dir:
            text = f"(cd {shlex.quote(project.dir)} && {text})"
        lines.append(text)
    return " && ".join(lines), widened
