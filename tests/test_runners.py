"""The table of test runners (``warpline/runners/``): every row complete, documented and
tested, ids owned by one row each, and "never a runner the repository does not use"
decided in one place (``used_for``)."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from warpline.lang import LANGUAGES
from warpline.runners import RUNNERS, Runner, by_name, owner_of, partition, used_for
from warpline.runners.docs import DOCS_PAGE, markdown_table, page

ROOT = Path(__file__).resolve().parent.parent
ROWS = [pytest.param(runner, id=runner.name) for runner in RUNNERS]
_OPTIONAL = {"record_command", "import_map", "command_lines", "floor", "file_tests", "widen",
             "record", "run", "select_command", "whole_suite_at", "serves",
             "import_floor"}


def test_names_are_unique_words_the_wire_can_carry() -> None:
    names = [runner.name for runner in RUNNERS]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z][a-z0-9-]*", name) for name in names)
    assert all(by_name(name) is runner for name, runner in zip(names, RUNNERS, strict=True))


@pytest.mark.parametrize("runner", ROWS)
def test_every_row_provides_every_field(runner: Runner) -> None:
    for spec in dataclasses.fields(Runner):
        value = getattr(runner, spec.name)
        if spec.name in _OPTIONAL and value in (None, ""):
            continue
        if spec.type.startswith(("Callable", "Detect", "Command", "Collectable",
                                 "GraphTestNodes", "GraphTests", "ImportMap")):
            assert callable(value), spec.name
        elif spec.name not in ("language_default",):
            assert value, f"{runner.name}: {spec.name} is empty"
    assert runner.max_ids > 0
    assert set(runner.languages) <= {lang.name for lang in LANGUAGES}
    assert runner.whole_suite.split()[0]  # a command, not a sentence


@pytest.mark.parametrize("runner", ROWS)
def test_every_example_id_is_owned_by_its_row_alone(runner: Runner) -> None:
    # Rows owning the same files (the JavaScript runners) each say where they run one
    # (``serves``): the owner is then the one the repository uses (test_runner_js.py).
    for test_id in runner.example_ids:
        owners = [other for other in RUNNERS if other.owns(test_id)]
        assert runner in owners, test_id
        if len(owners) > 1:
            assert all(other.serves is not None for other in owners), test_id
            assert len({other.test_file(test_id) for other in owners}) == 1
        else:
            assert owner_of(test_id) is runner
        assert test_id.startswith(runner.test_file(test_id))


@pytest.mark.parametrize("runner", ROWS)
def test_every_rows_command_runs_its_ids_and_nothing_without_ids(runner: Runner,
                                                                 tmp_path: Path) -> None:
    ids = [i for i in runner.example_ids if "::" in i][:2]
    built = runner.command(tmp_path, ids)
    assert built is not None and not built[1]
    # The runner's own program (a JavaScript package's whole suite is its ``npm test``).
    assert built[0].split()[0] in (runner.whole_suite.split()[0], "npx", "node")
    assert runner.command(tmp_path, []) is None
    # Ids of files the work tree does not hold are never passed on (issue 34).
    assert runner.collectable(tmp_path, ids) == []


@pytest.mark.parametrize("runner", ROWS)
def test_every_row_has_its_own_tests_module_and_a_line_in_the_architecture(
        runner: Runner) -> None:
    assert (ROOT / "tests" / f"test_runner_{runner.name.replace('-', '_')}.py").is_file()
    module = runner.detect.__module__
    assert module.startswith("warpline.runners.")
    layout = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert f"{module.rpartition('.')[2]}.py" in layout


def test_the_runners_page_holds_the_generated_table_and_every_field() -> None:
    text = DOCS_PAGE.read_text(encoding="utf-8")
    assert markdown_table() in text
    assert page(text) == text
    fields = text[text.index("## The row"):text.index("### Test ids")]
    for spec in dataclasses.fields(Runner):
        assert f"    {spec.name}: " in fields, spec.name  # the definition, as in row.py
        assert f"`{spec.name}`" in fields, spec.name  # and what it receives and returns


def test_a_selection_is_split_by_owner_in_order() -> None:
    ids = ["tests/test_b.py::test_y", "tests/test_a.py", "src/main_test.go::TestMain",
           "README.rst::README.rst"]
    assert partition(ids) == {"pytest": [ids[0], ids[1], ids[3]], "go": [ids[2]]}


def test_no_module_outside_the_plugin_imports_pytest() -> None:
    # The plugin is the one adapter of pytest's objects; everything else works on ids.
    found = []
    for path in sorted((ROOT / "warpline").rglob("*.py")):
        if "pytest_plugin" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.relative_to(ROOT)}: {n}" for n in names
                      if n == "pytest" or n.startswith(("pytest.", "_pytest"))]
    assert found == []


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_runner_is_used_only_where_the_change_and_the_repository_call_for_it(
        tmp_path: Path) -> None:
    bare = _project(tmp_path / "bare", {"data/x.json": "{}\n"})
    configured = _project(tmp_path / "configured", {"pytest.ini": "[pytest]\n"})
    # A data file in a repository that declares no runner: none.
    assert used_for(bare, [None]) == []
    # The same file where pytest is configured: pytest (it may read it).
    assert [r.name for r in used_for(configured, [None])] == ["pytest"]
    # Python code: pytest, its language's default runner, configured or not.
    assert [r.name for r in used_for(bare, ["python"])] == ["pytest"]
    # Code of a language no row tests: none (a warning names its own command instead).
    assert used_for(configured, ["go"]) == []
