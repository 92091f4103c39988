"""A per-test map of a Maven project from JaCoCo's own coverage (issue 37 item 3).

How, decided by measurement (``bench/README.md``): Surefire offers no way to add a JUnit
listener from the command line (only the pom's ``<properties>``), and per test class
granularity is useless where the whole suite is one suite class (junit4's ``AllTests``).
So the project's own build compiles (``mvn test-compile``) and resolves its test class
path (``dependency:build-classpath``); then warpline's small launcher, compiled by the
JDK's ``javac`` here — ``runners/java/WarplineJUnit.java`` (JUnit 4, JUnit 3) or, when the
project's tests run on the JUnit Platform (its engine on the test class path),
``WarplinePlatform.java`` with the Platform's launcher of the same version — runs each class
Surefire's includes reach, in one JVM under the JaCoCo agent, and after each test takes the
agent's execution data through its runtime API and maps it to lines with
``org.jacoco.core`` (``WarplineCoverage.java``). The agent is given through
``JAVA_TOOL_OPTIONS``, so a JVM a test starts (a command-line runner under test) is
measured too: it writes its data when it exits, and that counts for the test that started
it. JaCoCo comes from Maven Central (``JACOCO_VERSION``).

Lines become entities with the walker's own Java definitions at the recorded commit: a
line counts for the innermost definition whose span holds it and every definition around
it, and the package. What ran between tests of a class (``@BeforeClass``, static
initializers) counts for each test of that class; what ran outside every class, as
``at_import``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pygit2

from warpline.lang import JAVA
from warpline.lang.java import module_name, read
from warpline.runners.maven_rules import JavaProject
from warpline.settings import child_environment

__all__ = ["JACOCO_VERSION", "JavaRecording", "entity_lines", "record", "resolve_tools"]

JACOCO_VERSION = "0.8.15"
# Named with its version: a prefix (`dependency:`) asks the registry's metadata every time.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath"
SOURCE = "maven-jacoco"  # <runner>-<tool>: testselect names the row that records it
_PARAMS = re.compile(r"\[.*$")
_TOOLS_POM = f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>warpline</groupId><artifactId>jacoco-tools</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.jacoco</groupId><artifactId>org.jacoco.core</artifactId>
      <version>{JACOCO_VERSION}</version></dependency>
    <dependency><groupId>org.jacoco</groupId><artifactId>org.jacoco.agent</artifactId>
      <version>{JACOCO_VERSION}</version><classifier>runtime</classifier></dependency>
  </dependencies>
</project>
"""


class RecordFailed(Exception):
    """A step of the recording failed: ``step`` names it, ``detail`` is its output's tail."""

    def __init__(self, step: str, detail: str) -> None:
        super().__init__(f"{step}: {detail}")
        self.step, self.detail = step, detail


@dataclass(slots=True)
class JavaRecording:
    """Per test id: its outcome and the lines it ran (``file`` -> lines, ``file`` being
    ``pkg/File.java`` as JaCoCo names sources); per test class, what ran between tests."""
    tests: dict[str, tuple[str, dict[str, set[int]]]] = field(default_factory=dict)
    between: dict[str, dict[str, set[int]]] = field(default_factory=dict)
    seconds: float = 0.0


def _run(step: str, args: list[str], cwd: Path, env: dict[str, str] | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env,
                          check=False, timeout=7200)
    if check and done.returncode != 0:
        raise RecordFailed(step, (done.stdout + done.stderr)[-2000:])
    return done


def _mvn(project_dir: Path) -> str:
    wrapper = project_dir / "mvnw"
    return str(wrapper) if wrapper.is_file() and os.access(wrapper, os.X_OK) else "mvn"


def resolve_tools(work: Path, platform: str | None = None) -> tuple[str, str]:
    """(the agent's jar, the class path of org.jacoco.core and its ASM, and the JUnit
    Platform's launcher of the project's Platform version when given)."""
    tools = work / "jacoco-tools"
    tools.mkdir(parents=True, exist_ok=True)
    launcher = "" if platform is None else (
        "    <dependency><groupId>org.junit.platform</groupId>"
        "<artifactId>junit-platform-launcher</artifactId>\n"
        f"      <version>{platform}</version></dependency>\n")
    (tools / "pom.xml").write_text(_TOOLS_POM.replace("  </dependencies>",
                                                      launcher + "  </dependencies>"),
                                   encoding="utf-8")
    listing = tools / "cp.txt"
    _run("resolve JaCoCo", ["mvn", "-q", "-B", DEPENDENCY_PLUGIN,
                            f"-Dmdep.outputFile={listing}"], tools)
    jars = [j for j in listing.read_text(encoding="utf-8").strip().split(os.pathsep) if j]
    agent = next((j for j in jars if "org.jacoco.agent" in j and "runtime" in j), None)
    if agent is None:
        raise RecordFailed("resolve JaCoCo", "no org.jacoco.agent runtime jar resolved")
    return agent, os.pathsep.join(j for j in jars if j != agent)


def _launcher(work: Path, classpath: str, main: str) -> Path:
    """warpline's launcher ``main`` (``WarplineJUnit`` or ``WarplinePlatform``) and the
    recording they share, compiled against the project's test class path."""
    out = work / "launcher"
    out.mkdir(parents=True, exist_ok=True)
    sources = []
    for name in ("WarplineCoverage", main):
        source = resources.files("warpline.runners") / "java" / f"{name}.java"
        target = out / f"{name}.java"
        target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
        sources.append(str(target))
    _run("compile the launcher", ["javac", "-nowarn", "-d", str(out), "-cp", classpath,
                                  *sources], out)
    return out


def _platform(dependencies: str) -> str | None:
    """The JUnit Platform's version when the project's tests run on it (its engine is on
    the test class path), else None (JUnit 4 runs them)."""
    for jar in dependencies.split(os.pathsep):
        name = Path(jar).name
        if name.startswith("junit-platform-engine-") and name.endswith(".jar"):
            return name.removeprefix("junit-platform-engine-").removesuffix(".jar")
    return None


def record(root: Path, project: JavaProject, classes: list[str], work: Path,
           assertions: bool = True) -> JavaRecording:
    """Run ``classes`` (binary names) of ``project`` one test at a time under JaCoCo."""
    import time

    if shutil.which("javac") is None or shutil.which("mvn") is None:
        raise RecordFailed("toolchain", "mvn and javac are needed to record a Java map")
    start = time.perf_counter()
    project_dir = root / project.directory if project.directory else root
    listing = work / "project-cp.txt"
    _run("mvn test-compile", [_mvn(project_dir), "-q", "-B", "test-compile",
                              DEPENDENCY_PLUGIN, f"-Dmdep.outputFile={listing}"],
         project_dir)
    dependencies = listing.read_text(encoding="utf-8").strip()
    platform = _platform(dependencies)
    agent, core = resolve_tools(work, platform)
    class_dirs = os.pathsep.join(str(project_dir / "target" / d)
                                 for d in ("test-classes", "classes"))
    main = "WarplinePlatform" if platform else "WarplineJUnit"
    launcher = _launcher(work, os.pathsep.join([core, agent, class_dirs, dependencies]), main)
    out = work / "tests.jsonl"
    children = work / "children.exec"
    args = ["java", *(["-ea"] if assertions else []),
            "-cp", os.pathsep.join([str(launcher), core, class_dirs, dependencies]),
            main, str(out), class_dirs, str(children), *classes]
    # The agent through the environment: a JVM a test starts (a command-line runner under
    # test) inherits it and writes its data for the test that started it.
    env = child_environment()
    env["JAVA_TOOL_OPTIONS"] = " ".join(filter(None, [
        env.get("JAVA_TOOL_OPTIONS", ""), f"-javaagent:{agent}=destfile={children},append=true"]))
    _run("run the tests", args, project_dir, env=env, check=False)
    if not out.is_file():
        raise RecordFailed("run the tests", "the launcher wrote no recording")
    recording = JavaRecording(seconds=time.perf_counter() - start)
    for line in out.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        lines = {str(k): set(v) for k, v in entry.get("lines", {}).items()}
        if "test" in entry:
            recording.tests[str(entry["test"])] = (str(entry.get("outcome", "unknown")), lines)
        elif "between" in entry:
            merged = recording.between.setdefault(str(entry["between"]), {})
            for file, found in lines.items():
                merged.setdefault(file, set()).update(found)
    return recording


def entity_lines(source: bytes, path: str) -> list[tuple[str, ...]] | None:
    """Line -> the locators running it counts for (innermost first, the package last);
    None when the file cannot be read."""
    entities = read(source)
    if entities is None:
        return None

    class _Files:
        def read(self, _path: str) -> bytes:
            return source

    package = module_name(path, _Files()) or "(default)"
    count = entities.line_count
    owners: list[list[str]] = [[] for _ in range(count)]
    ranked = sorted((e for e in entities.entities if e.qualname),
                    key=lambda e: -(e.spans[0][1] - e.spans[0][0]))
    for entity in ranked:  # outer first, so the innermost ends up first after reversing
        locator = JAVA.locator(entity.key, package)
        for first, last in entity.spans:
            for line in range(max(first, 1), min(last, count) + 1):
                owners[line - 1].append(locator)
    module = f"java:module:{package}"
    return [(*reversed(found), module) for found in owners]


def source_at(repo: pygit2.Repository, commit: pygit2.Commit, path: str) -> bytes | None:
    try:
        entry = commit.tree[path]
    except KeyError:
        return None
    blob = repo.get(entry.id)
    return blob.data if isinstance(blob, pygit2.Blob) else None


def test_id(project: JavaProject, root: Path, name: str) -> str | None:
    """``pkg.Outer$Inner#method[0]`` -> ``<file>::Outer$Inner#method``."""
    cls, _, method = name.partition("#")
    method = _PARAMS.sub("", method)
    package, _, simple = cls.rpartition(".")
    top = simple.split("$", 1)[0]
    relative = f"{package.replace('.', '/')}/{top}.java" if package else f"{top}.java"
    for test_root in (*project.test_roots, *project.main_roots):
        if (root / test_root / relative).is_file():
            return f"{test_root}{relative}::{simple}#{method}" if method else \
                f"{test_root}{relative}::{simple}"
    return None
