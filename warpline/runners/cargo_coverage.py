"""A per-test map of a cargo project from LLVM's source-based coverage.

What the machine reaches: the toolchain's own ``llvm-tools`` (``rustup component add
llvm-tools``: ``llvm-profdata`` and ``llvm-cov`` built for the compiler's LLVM), so no
crate is installed and the profile format always matches the compiler.

1. The suite's test binaries are built once with ``RUSTFLAGS=-C instrument-coverage``
   (``cargo test --no-run --message-format=json``, the whole suite's arguments) into
   their own target directory (``$CARGO_TARGET_DIR/warpline-cov``, else
   ``target/warpline-cov``), so the project's own build is left alone.
2. Each binary lists its tests (``--list --format terse``; ``--ignored`` ones are left
   out, as ``cargo test`` leaves them) and each test runs alone, by its own filter
   (``<binary> --exact <name> --test-threads 1``, from its package's directory as cargo
   runs it), with ``LLVM_PROFILE_FILE`` naming a directory of its own: the processes it
   starts (an integration test running the package's binary, itself built with
   coverage) write their profiles there too.
3. ``llvm-profdata show --all-functions --counts`` of each profile gives the functions
   that test entered (an entry count above zero); ``llvm-cov export`` of each binary, once,
   gives each function's file and first line. A function's line is mapped to the
   definition owning it (``testmap.entitymap``): a closure or a generic's instance counts
   for the function it is written in.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from warpline.errors import InvalidArgument
from warpline.runners.cargo_command import suite
from warpline.settings import child_environment

__all__ = ["Binary", "CargoRecording", "llvm_tool", "record"]

RUN_TIMEOUT_S = 600
_RESULT = re.compile(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed")
_FUNCTION = re.compile(r"^  (\S+):\n(?:    .*\n)*?    Function count: (\d+)", re.M)


@dataclass(slots=True)
class Binary:
    """One instrumented test binary cargo built, with the target it was built for."""
    executable: str
    package_dir: str  # repo-relative
    target_kind: str
    target_name: str
    src_path: str


@dataclass(slots=True)
class CargoRecording:
    """``lines``: test (binary index, libtest name) -> file -> lines; outcomes likewise."""

    binaries: list[Binary] = field(default_factory=list)
    lines: dict[tuple[int, str], dict[str, set[int]]] = field(default_factory=dict)
    outcomes: dict[tuple[int, str], str] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    version: str = ""


def llvm_tool(name: str) -> str:
    """The toolchain's ``llvm-profdata``/``llvm-cov`` (the ``llvm-tools`` component)."""
    try:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True,
                                 text=True, check=True, timeout=60).stdout.strip()
        host = next(line.split(":", 1)[1].strip() for line in subprocess.run(
            ["rustc", "-vV"], capture_output=True, text=True, check=True,
            timeout=60).stdout.splitlines() if line.startswith("host:"))
    except (OSError, subprocess.SubprocessError, StopIteration) as exc:
        raise InvalidArgument(f"rustc cannot be run here ({exc}): install Rust (rustup).",
                              field="runner", value="cargo") from exc
    path = Path(sysroot) / "lib" / "rustlib" / host / "bin" / name
    if not path.is_file():
        raise InvalidArgument(
            f"{name} is missing from the Rust toolchain: `rustup component add llvm-tools`.",
            field="runner", value="cargo")
    return str(path)


def target_dir(root: Path) -> Path:
    base = child_environment().get("CARGO_TARGET_DIR")
    return (Path(base) if base else root / "target") / "warpline-cov"


def _env(root: Path, scratch: Path) -> dict[str, str]:
    env = child_environment()
    flags = env.get("RUSTFLAGS", "")
    return {**env, "RUSTFLAGS": f"{flags} -C instrument-coverage".strip(),
            "CARGO_TARGET_DIR": str(target_dir(root)),
            "LLVM_PROFILE_FILE": str(scratch / "build" / "%p-%m.profraw")}


def build(root: Path, scratch: Path) -> tuple[list[Binary], list[str]]:
    """The suite's test binaries, built with coverage; and what failed to build."""
    found = suite(root)
    argv = ["cargo", "test", "--no-run", "--message-format=json"]
    if found.workspace:
        argv.append("--workspace")
    if found.all_features:
        argv.append("--all-features")
    done = subprocess.run(argv, cwd=root, env=_env(root, scratch), capture_output=True,
                          text=True, timeout=RUN_TIMEOUT_S * 6, check=False)
    binaries: list[Binary] = []
    resolved = root.resolve()
    for line in done.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("reason") != "compiler-artifact" or not message.get("executable") \
                or not message.get("profile", {}).get("test"):
            continue
        manifest = Path(message["manifest_path"]).resolve().parent
        try:
            package = manifest.relative_to(resolved).as_posix()
        except ValueError:
            continue
        target = message["target"]
        src = Path(target["src_path"]).resolve()
        binaries.append(Binary(message["executable"], "" if package == "." else package,
                               target["kind"][0], target["name"],
                               src.relative_to(resolved).as_posix()
                               if resolved in src.parents else str(src)))
    broken = [] if done.returncode == 0 else [done.stderr.strip().splitlines()[-1]
                                              if done.stderr.strip() else "cargo test --no-run"]
    return binaries, broken


def _list(binary: Binary, ignored: bool, scratch: Path) -> list[str]:
    argv = [binary.executable, "--list", "--format", "terse", *(["--ignored"] if ignored
                                                                  else [])]
    # An instrumented binary writes a profile wherever it runs: never in the work tree.
    env = {**child_environment(), "LLVM_PROFILE_FILE": str(scratch / "build" / "%p-%m.profraw")}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          check=False, env=env, cwd=scratch)
    return [line[: -len(": test")] for line in done.stdout.splitlines()
            if line.endswith(": test")]


def _functions(profile_dir: Path, profdata: str) -> Iterator[str]:
    for raw in sorted(profile_dir.glob("*.profraw")):
        done = subprocess.run([profdata, "show", "--all-functions", "--counts", str(raw)],
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              check=False)
        for name, count in _FUNCTION.findall(done.stdout):
            if int(count) > 0:
                yield name


def _locations(binaries: list[Binary], scratch: Path, llvm_cov: str,
               profdata: str) -> dict[str, tuple[str, int]]:
    """Mangled function name -> (file, first line), from each binary's coverage map."""
    empty = scratch / "empty.profdata"
    source = next(iter(sorted(scratch.glob("t*/*.profraw"))), None)
    if source is None:
        return {}
    subprocess.run([profdata, "merge", "-sparse", str(source), "-o", str(empty)],
                   capture_output=True, timeout=RUN_TIMEOUT_S, check=False)
    out: dict[str, tuple[str, int]] = {}
    objects = sorted({b.executable for b in binaries} | _bins(binaries))
    for obj in objects:
        done = subprocess.run([llvm_cov, "export", "-format=text", "-skip-expansions",
                               "-instr-profile", str(empty), "-object", obj,
                               "-ignore-filename-regex", r"/(\.cargo|\.rustup|rustc)/"],
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              check=False)
        try:
            data = json.loads(done.stdout)["data"]
        except (ValueError, KeyError):
            continue
        for export in data:
            for function in export.get("functions", []):
                regions = function.get("regions") or []
                files = function.get("filenames") or []
                if regions and files:
                    out.setdefault(function["name"], (files[0], int(regions[0][0])))
    return out


def _bins(binaries: list[Binary]) -> set[str]:
    """The package binaries an integration test runs (``target/…/debug/<bin>``)."""
    found = set()
    for binary in binaries:
        if binary.target_kind == "bin":
            candidate = Path(binary.executable).parent.parent / binary.target_name
            if candidate.is_file():
                found.add(str(candidate))
    return found


def record(root: Path, jobs: int = 2) -> CargoRecording:
    """Build, run each test alone under coverage, and read what each entered."""
    profdata, llvm_cov = llvm_tool("llvm-profdata"), llvm_tool("llvm-cov")
    recording = CargoRecording()
    with tempfile.TemporaryDirectory(prefix="warpline-cargocov-") as tmp:
        scratch = Path(tmp)
        (scratch / "build").mkdir()
        binaries, recording.broken = build(root, scratch)
        recording.binaries = binaries
        recording.version = _version()
        work: list[tuple[int, str]] = []
        for index, binary in enumerate(binaries):
            skip = set(_list(binary, True, scratch))
            work.extend((index, name) for name in _list(binary, False, scratch)
                        if name not in skip)
        executed: dict[tuple[int, str], list[str]] = {}

        def one(item: tuple[int, int, str]) -> None:
            number, index, name = item
            binary = binaries[index]
            profiles = scratch / f"t{number}"
            profiles.mkdir()
            env = {**child_environment(), "LLVM_PROFILE_FILE": str(profiles / "%p-%m.profraw"),
                   "CARGO_MANIFEST_DIR": str(root / binary.package_dir)}
            try:
                done = subprocess.run([binary.executable, "--exact", name, "--test-threads",
                                       "1"], cwd=root / binary.package_dir, env=env,
                                      capture_output=True, text=True,
                                      timeout=RUN_TIMEOUT_S, check=False)
                result = _RESULT.search(done.stdout)
                passed = result is not None and result.group(2) == "1"
                outcome = "passed" if passed and done.returncode == 0 else "failed"
            except subprocess.TimeoutExpired:
                outcome = "failed"
            recording.outcomes[(index, name)] = outcome
            executed[(index, name)] = list(_functions(profiles, profdata))
            if number > 0:  # the first test's profile stays: it reads the binaries' maps
                shutil.rmtree(profiles, ignore_errors=True)

        numbered = [(n, i, name) for n, (i, name) in enumerate(work)]
        if numbered:
            one(numbered[0])
        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            list(pool.map(one, numbered[1:]))
        where = _locations(binaries, scratch, llvm_cov, profdata)
        for key, names in executed.items():
            files: dict[str, set[int]] = {}
            for name in names:
                found = where.get(name)
                if found is not None:
                    files.setdefault(found[0], set()).add(found[1])
            recording.lines[key] = files
    return recording


def _version() -> str:
    try:
        return subprocess.run(["rustc", "--version"], capture_output=True, text=True,
                              timeout=60, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "rustc"
