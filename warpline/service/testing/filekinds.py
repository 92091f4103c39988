"""What a changed file no language row reads is to the tests (issue 34).

* **documentation** (``*.md``, ``*.rst``, ``*.adoc``, prose ``*.txt``, changelogs,
  licences, ``docs/``'s pages and pictures, the docs build's own config): no test reads it,
  so it selects none and the answer says so; unless a runner row runs it as a test (a
  doctest file: ``Runner.reads_docs``);
* **CI configuration** (``.github/workflows/``, ``.gitlab-ci.yml``, ``.circleci/``, ...,
  the pre-commit hooks the pipeline runs): the pipeline verifies it, not a test: "run the
  pipeline", never "the whole suite";
* **configuration the tests read** (each runner row's own list, ``Runner.suite_files``:
  pytest's ``pyproject.toml``, ``setup.cfg``, ``tox.ini``, requirements and lock files; a
  Go row's ``go.mod``): that runner's whole suite, with the reason; an untracked one its
  row's ``run_input`` passes over is the runner's own output (cargo's ``Cargo.lock``);
* anything else (a data file, a template, a fixture): unknown to the selection, as before.

The split is by path alone, the repository's files being data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from warpline.lang import of_change
from warpline.runners import RUNNERS, Runner
from warpline.service.impact.seeds import Seed

DOCS, CI, TEST_CONFIG = "docs", "ci", "test_config"

_DOC_SUFFIXES = (".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".txt", ".rdoc", ".pod")
_DOC_NAMES = ("changelog", "changes", "history", "news", "authors", "contributors",
              "license", "licence", "copying", "notice", "code_of_conduct", "security",
              "readme", "maintainers", "citation")
_DOC_DIRS = ("docs", "doc", "documentation")
_DOC_FILES = ("mkdocs.yml", "mkdocs.yaml", ".readthedocs.yml", ".readthedocs.yaml",
              "CITATION.cff", ".github/ISSUE_TEMPLATE/*", ".github/PULL_REQUEST_TEMPLATE*",
              ".github/FUNDING.yml")
# Inputs, not prose, whatever their suffix.
_NOT_PROSE = ("requirements*", "constraints*", "*requirements*.txt", "robots.txt",
              "CMakeLists.txt")
CI_FILES = (".github/workflows/*", ".github/actions/*", ".github/dependabot.yml",
            ".github/dependabot.yaml", ".gitlab-ci.yml", ".gitlab/ci/*", ".circleci/*",
            ".travis.yml", "azure-pipelines.yml", ".azure-pipelines/*", "Jenkinsfile",
            ".buildkite/*", "appveyor.yml", ".appveyor.yml", "bitbucket-pipelines.yml",
            ".drone.yml", ".woodpecker.yml", ".woodpecker/*", ".pre-commit-config.yaml",
            ".pre-commit-hooks.yaml", "codecov.yml", ".codecov.yml", ".cirrus.yml",
            ".github/renovate.json", "renovate.json", ".mergify.yml", ".github/CODEOWNERS",
            "CODEOWNERS", ".git-blame-ignore-revs")


def _matches(path: str, patterns: tuple[str, ...]) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(fnmatchcase(path, p) if "/" in p else fnmatchcase(name, p) for p in patterns)


def is_ci(path: str) -> bool:
    return _matches(path, CI_FILES)


def is_docs(path: str) -> bool:
    """Documentation by its path: prose suffixes, changelogs and licences by name, the
    documentation folder, the docs build's own configuration."""
    if _matches(path, _NOT_PROSE):
        return False
    lower = path.rsplit("/", 1)[-1].lower()
    stem = lower.split(".", 1)[0]
    return (lower.endswith(_DOC_SUFFIXES) or path.split("/", 1)[0] in _DOC_DIRS
            or _matches(path, _DOC_FILES)
            or any(stem == n or stem.startswith((f"{n}_", f"{n}-")) for n in _DOC_NAMES))


def suite_runners(root: Path, path: str, used: list[Runner] | None = None) -> list[Runner]:
    """The runner rows (detected in the repository) whose tests read ``path``'s
    configuration: their whole suites answer for it."""
    rows = used if used is not None else [r for r in RUNNERS if r.detect(root)]
    return [r for r in rows if _matches(path, (*r.config_files, *r.suite_files))]


@dataclass(slots=True)
class NonCode:
    """A range's seeds apart by what their files are to the tests."""
    active: list[Seed] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)  # locator -> docs | ci | test_config
    runners: dict[str, list[str]] = field(default_factory=dict)  # test_config -> runner names

    def of_kind(self, kind: str) -> list[str]:
        return sorted(loc for loc, k in self.kinds.items() if k == kind)

    def wire(self) -> list[dict[str, Any]]:
        return [{"locator": loc, "kind": kind, "runners": self.runners.get(loc, [])}
                for loc, kind in sorted(self.kinds.items())][:50]

    def whole_suites(self) -> dict[str, str]:
        """Runner name -> why its whole suite runs (configuration its tests read changed)."""
        files: dict[str, list[str]] = {}
        for locator, names in sorted(self.runners.items()):
            for name in names:
                files.setdefault(name, []).append(_path(locator))
        return {name: f"{_listed(paths)} changed: configuration {name}'s tests read (its "
                      "options, dependencies or lock files). Run the whole suite."
                for name, paths in files.items()}

    def warnings(self) -> list[str]:
        out = []
        docs, ci = self.of_kind(DOCS), self.of_kind(CI)
        if docs:
            out.append(f"{len(docs)} changed files are documentation ({_listed(docs)}): no "
                       "test reads them, so they select none. Read them.")
        if ci:
            out.append(f"{len(ci)} changed files are CI configuration ({_listed(ci)}): no "
                       "test here verifies them. Run the pipeline (push the branch or open "
                       "the pull request) and read its result.")
        for why in self.whole_suites().values():
            out.append(why)
        return out

    def inspection(self, locator: str) -> list[dict[str, object]]:
        """A non-code item's only suggestion."""
        kind = self.kinds[locator]
        why = {DOCS: "Documentation: no test reads it. Read the change.",
               CI: "CI configuration: run the pipeline and read its result.",
               TEST_CONFIG: "Configuration the tests read: the whole suite runs "
                            f"({', '.join(self.runners.get(locator, []))})."}[kind]
        return [{"kind": "inspection", "command": None, "test": None, "distance": None,
                 "callers": [], "why": why}]


def _path(locator: str) -> str:
    return locator.removeprefix("core:file:")


def _listed(locators: list[str], most: int = 5) -> str:
    paths = [_path(loc) for loc in locators]
    shown = ", ".join(paths[:most])
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")


def split(root: Path, seeds: list[Seed]) -> NonCode:
    """Documentation, CI configuration and the configuration the tests read, apart from
    the seeds a selection answers for (``active``)."""
    out = NonCode()
    detected: list[Runner] | None = None
    for seed in seeds:
        path = seed.path or (seed.locator.removeprefix("core:file:")
                             if seed.locator.startswith("core:file:") else None)
        if seed.kind != "file" or not path or of_change(seed.locator, path) is not None:
            out.active.append(seed)
            continue
        if detected is None:
            detected = [r for r in RUNNERS if r.detect(root)]
        readers = suite_runners(root, path, detected)
        if readers and seed.uncommitted and _untracked(root, path):
            readers = [r for r in readers if r.run_input(path)]
        if readers:
            out.kinds[seed.locator] = TEST_CONFIG
            out.runners[seed.locator] = [r.name for r in readers]
        elif is_ci(path):
            out.kinds[seed.locator] = CI
        elif is_docs(path) and not any(r.reads_docs(root, path) for r in detected):
            out.kinds[seed.locator] = DOCS
        else:
            out.active.append(seed)
    return out


def _untracked(root: Path, path: str) -> bool:
    """Whether the work tree's ``path`` is in neither the index nor HEAD: then a runner's
    own output, not configuration, unless its row's ``run_input`` says the runner reads it
    (cargo writes a Cargo.lock where the repository commits none)."""
    from warpline.git.lookups import head_blob, is_tracked, open_repository

    repo = open_repository(str(root))
    if repo is None or is_tracked(repo, path) is not False:
        return False
    try:
        return head_blob(repo, path, 64 * 1024 * 1024) is None
    except ValueError:
        return False  # HEAD holds it (past the bound, or not a file)
