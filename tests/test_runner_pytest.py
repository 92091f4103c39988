"""pytest's row (``warpline/runners/pytest.py``): detection from the repository's own files,
ids it owns, and its command run for real, running exactly the selection as printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from warpline.runners import used_for
from warpline.runners.pytest import PYTEST


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(("files", "uses"), [
    ({"pytest.ini": "[pytest]\n"}, True),
    ({"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n"}, True),
    ({"tox.ini": "[tox]\n\n[pytest]\naddopts = -q\n"}, True),
    ({"setup.cfg": "[tool:pytest]\n"}, True),
    ({"conftest.py": ""}, True),
    ({"pyproject.toml": "[project]\nname = 'x'\n"}, False),  # no pytest section
    ({"setup.cfg": "[metadata]\nname = x\n"}, False),
    ({"go.mod": "module example.com/x\n"}, False),
])
def test_a_repository_uses_pytest_when_its_own_files_say_so(
        tmp_path: Path, files: dict[str, str], uses: bool) -> None:
    assert PYTEST.detect(_write(tmp_path, files)) is uses


def test_a_symlinked_config_does_not_declare_pytest(tmp_path: Path) -> None:
    _write(tmp_path, {"elsewhere/pytest.ini": "[pytest]\n"})
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "pytest.ini").symlink_to(tmp_path / "elsewhere" / "pytest.ini")
    assert not PYTEST.detect(tmp_path / "repo")


def test_pytest_owns_python_ids_directories_and_files_no_language_reads() -> None:
    for test_id in ("tests/test_a.py::TestA::test_x[a/b.go]", "tests", ".", "docs/x.txt"):
        assert PYTEST.owns(test_id), test_id
    for test_id in ("pkg/x_test.go::TestX", "src/lib.rs", "test/a.test.ts::case"):
        assert not PYTEST.owns(test_id), test_id
    assert PYTEST.test_file("tests/test_a.py::TestA::test_x[1]") == "tests/test_a.py"


def test_a_change_to_python_code_uses_pytest_even_unconfigured(tmp_path: Path) -> None:
    assert used_for(tmp_path, ["python", None]) == [PYTEST]
    assert used_for(tmp_path, [None]) == []


PROJECT = {
    "tests/test_root.py": "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n",
    "examples/tut/pytest.ini": "[pytest]\n",
    "examples/tut/tests/test_tut.py": "class TestT:\n    def test_a(self):\n        pass\n\n"
                                      "    def test_b(self):\n        pass\n",
}


def test_the_command_runs_exactly_the_selection_as_printed(tmp_path: Path) -> None:
    root = _write(tmp_path / "repo", PROJECT)
    selected = ["tests/test_root.py::test_two", "examples/tut/tests/test_tut.py::TestT::test_a"]
    built = PYTEST.command(root, selected)
    assert built is not None
    command, widened = built
    assert not widened
    assert PYTEST.command_lines is not None
    assert " && ".join(PYTEST.command_lines(root, selected)) == command
    # ``pytest`` on PATH is this interpreter's, verbose, so each test that ran is named.
    shim = tmp_path / "bin" / "pytest"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pytest -p no:cacheprovider '
                    f'-p no:warpline -v "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "WARPLINE_"))}
    env.update(PATH=f"{shim.parent}{os.pathsep}{env.get('PATH', '')}",
               PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(["sh", "-c", command], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    ran = re.findall(r"^(\S+::\S+) PASSED", done.stdout, flags=re.MULTILINE)
    assert sorted(ran) == ["tests/test_root.py::test_two", "tests/test_tut.py::TestT::test_a"]


def test_the_selection_and_the_record_name_the_runner(tmp_path: Path) -> None:
    """``data.selection.runners`` holds pytest's share and its command (next_actions'
    first); a pass recorded from a pytest run keeps ``run.runner``; a change no runner the
    repository uses tests gets no entry and no command."""
    from tests.gitfixture import run_git
    from tests.test_ci_github_job import FILES, _env, _pytest, _warpline, _write
    from warpline.registry import call_tool

    root = tmp_path / "p"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "config", "user.name", "T")
    run_git(root, "config", "user.email", "t@example.com")
    _write(root, FILES)
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "calc")
    assert _pytest(root, _env(), "--warpline-verify", "test_pass").returncode == 0
    record = json.loads(_warpline(root, _env(), "ci", "--record", "test_pass", "--no-push",
                                  "--json").stdout)
    assert record["record"]["data"]["run"]["runner"] == "pytest"

    _write(root, {"calc/ops.py": FILES["calc/ops.py"] + "\n\ndef neg(a):\n    return -a\n"})
    run_git(root, "commit", "-qam", "neg")
    env = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    selection = env["data"]["selection"]
    [run] = selection["runners"]
    assert (run["runner"], run["tests"]) == ("pytest", selection["tests"])
    assert run["command"] == env["next_actions"]["commands"][0]["command"]

    _write(root, {"tool/main.go": "package main\n\nfunc main() {}\n"})
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "a go tool")
    env = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    assert env["data"]["selection"]["runners"] == []
    assert not any(c["command"].startswith("pytest") for c in env["next_actions"]["commands"])


def test_a_parametrized_id_holding_double_colons_is_kept_while_its_test_is_there(
        tmp_path: Path) -> None:
    # requests' test_errors is parametrized with an IPv6 URL: its id holds "::" inside the
    # brackets, and was dropped from the selection as a test its file no longer defines.
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_urls.py").write_text(
        "import pytest\n\n\nclass TestUrls:\n"
        "    @pytest.mark.parametrize('url', ['http://fe80::1/'])\n"
        "    def test_errors(self, url):\n        assert url\n", encoding="utf-8")
    kept = "tests/test_urls.py::TestUrls::test_errors[http://fe80::1/]"
    gone = "tests/test_urls.py::TestUrls::test_gone[http://fe80::1/]"
    assert PYTEST.collectable(tmp_path, [kept, gone]) == [kept]
