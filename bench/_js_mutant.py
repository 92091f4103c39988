"""JavaScript/TypeScript mutants and the truth of a whole-suite run, for
``bench_js_mutants.py``.

``mutate``: the function, method or arrow function starting on a line is broken, a thrown
error (``throw new Error(...)`` first in its body) or a wrong return value (``return
undefined`` first in its body; an expression body becomes ``undefined``).

``failing``: the whole suite run by the repository's runner, the failing tests' ids as the
JS rows name them (``<file>::<suite> > <test>``): mocha through warpline's hook (outcomes
only), Jest and Vitest from their JSON reports, AVA from its TAP lines (``file › title``),
``node --test`` by file. Each test gets ``TEST_TIMEOUT_MS`` (the baseline run too: a test
failing by it before any mutant is left out), and the runner exits when its tests are done
(mocha ``--exit``, Jest ``--forceExit``: a mutant can leave a server open).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

_FUNCTIONS = frozenset({"function_declaration", "function_expression", "function",
                        "arrow_function", "method_definition", "generator_function_declaration",
                        "generator_function"})
THROW = "throw new Error('warpline mutant');"
# A mutant that makes every request hang would cost each test the runner's own timeout
# (mocha 2 s, Jest 5 s): the truth runs (the baseline too) give a test this long.
TEST_TIMEOUT_MS = 1500
# A whole-suite run killed past its timeout (mocha's own status counts failures: not 124).
TIMED_OUT = -9


def _parser(path: str) -> Any:
    import tree_sitter

    if path.endswith((".ts", ".mts", ".cts", ".tsx")):
        import tree_sitter_typescript

        raw = tree_sitter_typescript.language_tsx() if path.endswith(".tsx") else \
            tree_sitter_typescript.language_typescript()
        return tree_sitter.Parser(tree_sitter.Language(raw))
    import tree_sitter_javascript

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))


def mutate(source: bytes, path: str, first: int, last: int, kind: str) -> bytes | None:
    """``source`` with the outermost function starting on line ``first`` (within the
    entity's lines ``first``..``last``) broken as ``kind`` (``throw`` or ``wrong-return``);
    None when there is none (an interface, a class, a constant)."""
    root = _parser(path).parse(source).root_node
    found = None
    stack = [root]
    while stack:
        node = stack.pop()
        row = node.start_point[0] + 1
        if node.type in _FUNCTIONS and first <= row <= last \
                and node.end_point[0] + 1 <= last:
            body = node.child_by_field_name("body")
            if body is not None:
                found = node
                break
        if node.start_point[0] + 1 <= last and node.end_point[0] + 1 >= first:
            stack.extend(reversed(node.named_children))
    if found is None:
        return None
    body = found.child_by_field_name("body")
    name = found.child_by_field_name("name")
    if name is not None and name.text in (b"constructor",) and kind == "wrong-return":
        kind = "throw"
    text = THROW if kind == "throw" else "return undefined;"
    if body.type == "statement_block":
        at = body.start_byte + 1
        return source[:at] + f" {text} ".encode() + source[at:]
    replacement = b"(() => { " + THROW.encode() + b" })()" if kind == "throw" else b"undefined"
    return source[:body.start_byte] + replacement + source[body.end_byte:]


def _env() -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("WARPLINE_")},
            "CI": "1", "FORCE_COLOR": "0", "NO_COLOR": "1"}


def failing(root: Path, timeout: int = 1800) -> tuple[set[str], set[str], int, float]:
    """The whole suite's ``(failing ids, every id that ran, exit status, seconds)``."""
    import time

    from warpline.runners.js_detect import projects

    start = time.perf_counter()
    bad: set[str] = set()
    seen: set[str] = set()
    status = 0
    for project in projects(root):
        if project.runner is None:
            continue
        found, ran, code = _RUNS[project.runner](project, timeout)
        bad |= found
        seen |= ran
        status = status or code
    return bad, seen, status, time.perf_counter() - start


def _run(words: list[str], cwd: Path, env: dict[str, str], timeout: int
         ) -> subprocess.CompletedProcess[str]:
    # Its own session: on the timeout the whole group goes (the runner's workers too, which
    # would otherwise keep running and keep its pipes open).
    with subprocess.Popen(words, cwd=cwd, env={**_env(), **env}, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:  # what it reported so far counts
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return subprocess.CompletedProcess(words, TIMED_OUT, out or "", "")
        finally:
            try:  # a worker left behind by a runner that exited
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return subprocess.CompletedProcess(words, proc.returncode, out, err)


def _mocha(project: Any, timeout: int) -> tuple[set[str], set[str], int]:
    from warpline.runners.js_command import _kept_options
    from warpline.runners.js_record import HOOK, _local_bin

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "outcomes.jsonl"
        words = [*_local_bin(project, ["npx", "mocha"]), *_kept_options(project),
                 "--timeout", str(TEST_TIMEOUT_MS), "--exit", "--require", str(HOOK),
                 *project.call.positional]
        env = dict(w.split("=", 1) for w in project.call.env)
        done = _run(words, project.path, {**env, "WARPLINE_JS_COVERAGE": str(out)}, timeout)
        bad, seen = set(), set()
        for line in out.read_text().splitlines() if out.is_file() else []:
            record = json.loads(line)
            if record.get("titles") is None:
                continue
            rel = Path(record["file"]).resolve().relative_to(project.root).as_posix()
            test_id = f"{rel}::" + " > ".join(t for t in record["titles"] if t)
            seen.add(test_id)
            if record.get("state") == "failed":
                bad.add(test_id)
    return bad, seen, done.returncode


def _json_report(project: Any, timeout: int, words: list[str]) -> tuple[set[str], set[str], int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        env = dict(w.split("=", 1) for w in project.call.env)
        done = _run([*words, f"--outputFile={out}"], project.path, env, timeout)
        try:
            report = json.loads(out.read_text())
        except (OSError, ValueError):
            return {"<no report>"}, set(), done.returncode or 1
    bad, seen = set(), set()
    for result in report.get("testResults", []):
        rel = Path(result["name"]).resolve().relative_to(project.root).as_posix()
        assertions = result.get("assertionResults", [])
        if not assertions and result.get("status") == "failed":
            bad.add(rel)  # the file failed before any test ran
        for case in assertions:
            test_id = f"{rel}::" + " > ".join([*case.get("ancestorTitles", []),
                                                case.get("title", "")])
            seen.add(test_id)
            if case.get("status") == "failed":
                bad.add(test_id)
    return bad, seen, done.returncode


def _jest(project: Any, timeout: int) -> tuple[set[str], set[str], int]:
    from warpline.runners.js_command import _kept_options
    from warpline.runners.js_record import _local_bin

    return _json_report(project, timeout, [*_local_bin(project, ["npx", "jest"]),
                                           *_kept_options(project), "--json", "--forceExit",
                                           f"--testTimeout={TEST_TIMEOUT_MS}"])


def _vitest(project: Any, timeout: int) -> tuple[set[str], set[str], int]:
    from warpline.runners.js_command import _kept_options
    from warpline.runners.js_record import _local_bin

    return _json_report(project, timeout, [*_local_bin(project, ["npx", "vitest", "run"]),
                                           *_kept_options(project), "--reporter=json",
                                           f"--testTimeout={TEST_TIMEOUT_MS}"])


_TAP = re.compile(r"^(not ok|ok) \d+ - (.*?)(?: # (?:SKIP|TODO).*)?$")
# AVA's crash lines (its TAP reporter's ``writeCrash``): a worker that failed names its
# file; an uncaught exception or unhandled rejection is titled by the error alone.
_AVA_FILE_CRASH = re.compile(r"^(?:(.+) exited (?:with a non-zero exit code: \d+|due to \w+)"
                             r"|No tests found in (.+?)(?:, make sure .*)?)$")


def _ava(project: Any, timeout: int) -> tuple[set[str], set[str], int]:
    from warpline.runners.js_command import _kept_options
    from warpline.runners.js_files import test_files
    from warpline.runners.js_record import _local_bin

    env = dict(w.split("=", 1) for w in project.call.env)
    done = _run([*_local_bin(project, ["npx", "ava"]), *_kept_options(project), "--tap"],
                project.path, env, timeout)
    files = test_files(project)
    stems = {f.rsplit(".", 1)[0]: f for f in files}
    bad, seen = set(), set()
    for line in done.stdout.splitlines():
        match = _TAP.match(line.strip())
        if match is None:
            continue
        head, _, title = match.group(2).partition(" › ")
        file = next((f for stem, f in stems.items() if stem.endswith(head.strip())), None)
        crash = _AVA_FILE_CRASH.match(match.group(2)) if not title else None
        if crash is not None:  # the file failed as a whole: its id is the file's
            named = crash.group(1) or crash.group(2)
            file = next((f for f in files if f == named or f.endswith("/" + named)), named)
        elif file is None:  # a crash titled by its error: no test, no file (the file's own
            continue        # "exited with a non-zero exit code" line follows it)
        test_id = f"{file}::{title}" if title else file
        seen.add(test_id)
        if match.group(1) == "not ok":
            bad.add(test_id)
    return bad, seen, done.returncode


def _node(project: Any, timeout: int) -> tuple[set[str], set[str], int]:
    from warpline.runners.js_files import test_files

    bad, seen = set(), set()
    status = 0
    for file in test_files(project):
        done = _run(["node", "--test", project.relative(file)], project.path, {}, timeout)
        seen.add(file)
        if done.returncode:
            bad.add(file)
            status = done.returncode
    return bad, seen, status


_RUNS = {"mocha": _mocha, "jest": _jest, "vitest": _vitest, "ava": _ava, "node-test": _node}
