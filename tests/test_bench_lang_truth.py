"""The new languages' per-commit truth (bench/bench_lang_truth.py): its event rules over a
real git history, ctags' Java signatures erased, and warpline scored against it on a
built history in every language (the tools themselves, skipped where one is missing)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from _ctags_truth import erase, params
from _lang_events import Defs, pair_events, settle
from _lang_git import changed_lines

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _defs(module: str, text: str, spans: dict[tuple[str, str], list[tuple[int, int]]]) -> Defs:
    out = Defs("go", module, lines=text.split("\n"))
    for key, found in spans.items():
        for first, last in found:
            out.add(key, first, last, "function")
    return out


def _blob(repo: Path, text: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
                          input=text, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def test_a_definition_moved_within_its_file_unchanged_is_not_modified(repo: Path) -> None:
    old = "func a() {\n\treturn\n}\n\nfunc b() {\n\tx()\n}\n"
    new = "func b() {\n\tx()\n}\n\nfunc a() {\n\treturn\n}\n"
    changed = changed_lines(repo, _blob(repo, old), _blob(repo, new))
    events, _ = pair_events(
        "c", _defs("m", old, {("function", "a"): [(1, 3)], ("function", "b"): [(5, 7)]}),
        _defs("m", new, {("function", "b"): [(1, 3)], ("function", "a"): [(5, 7)]}), changed)
    assert events == set()


def test_an_edit_marks_the_innermost_definition_and_blank_lines_are_layout(
        repo: Path) -> None:
    old = "type T struct {\n\tf func()\n}\n\nfunc (T) m() {\n\tx()\n}\n"
    new = "type T struct {\n\tf func()\n}\n\n\nfunc (T) m() {\n\ty()\n}\n"
    changed = changed_lines(repo, _blob(repo, old), _blob(repo, new))
    events, _ = pair_events(
        "c", _defs("m", old, {("struct", "T"): [(1, 3)], ("function", "T.m"): [(5, 7)]}),
        _defs("m", new, {("struct", "T"): [(1, 3)], ("function", "T.m"): [(6, 8)]}),
        changed)
    assert events == {("c", "go:function:m.T.m", "modified")}


def test_a_renamed_file_moves_its_definitions_even_under_the_same_module(
        repo: Path) -> None:
    text = "func a() {\n\treturn\n}\n"
    blob = _blob(repo, text)
    events, edited = pair_events(
        "c", _defs("pkg", text, {("function", "a"): [(1, 3)]}),
        _defs("pkg", text, {("function", "a"): [(1, 3)]}),
        changed_lines(repo, blob, blob), renamed=True)
    assert events == {("c", "go:function:pkg.a", "moved")}
    assert edited == {("c", "go:function:pkg.a", "moved"): False}


def test_a_locator_removed_and_added_in_one_commit_is_modified() -> None:
    assert settle({("c", "go:function:p.f", "removed"), ("c", "go:function:p.f", "added"),
                   ("c", "go:function:p.g", "added")}) == {
        ("c", "go:function:p.f", "modified"), ("c", "go:function:p.g", "added")}


def test_ctags_java_signatures_are_erased_to_simple_types() -> None:
    # ctags writes ``Class<?>....`` for a ``Class<?>...`` parameter.
    assert [erase(p) for p in params("(Class<?>.... classes)")] == ["Class[]"]
    assert [erase(p) for p in params(
        "(final java.util.Map<String, List<T>> m, int[] a, String... xs)")] == [
        "Map", "int[]", "String[]"]
    assert [erase(p) for p in params("(@TestedOn(ints = {1, 2}) int x)")] == ["int"]


def test_the_tiny_history_scores_every_language_it_can_read() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "bench_lang_truth.py"), "--tiny"],
                          capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    expected = {"go": shutil.which("ctags"), "java": shutil.which("ctags"),
                "rust": shutil.which("loomweave-plugin-rust"),
                "ts": shutil.which("node") and (BENCH / "out/node/node_modules/typescript")
                .is_dir()}
    for language, available in expected.items():
        header = next(line for line in lines if line.startswith(f"== demo ({language})"))
        if not available:
            assert "skipped" in header
            continue
        score = lines[lines.index(header) + 1]
        assert "precision 1.0  recall 1.0" in score, done.stdout
