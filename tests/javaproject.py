"""A small Maven project with JUnit 4 tests (issue 37 for Java): the real toolchain runs it.

    python -m tests.javaproject --warm     # .ci/run: resolve its plugins and dependencies once

Tests: ``CalcTest`` (JUnit 4, overloads in the code it calls, an ``@Ignore``d test),
``SubCheckTest`` inheriting ``@Test`` methods from the abstract ``BaseCheck``,
``LegacyTestCase`` (JUnit 3, ``extends TestCase``), a ``Nested`` member class run by
``Enclosed``, and ``Helper`` (a class of the test root that is no test). Versions are the
ones Maven Central serves (``/work/.library/env/packages/maven-partial.tsv``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId>
  <artifactId>calc</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-resources-plugin</artifactId>
        <version>3.5.0</version>
      </plugin>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.16.0</version>
      </plugin>
      <plugin>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.6.1</version>
      </plugin>
    </plugins>
  </build>
</project>
"""

FILES = {
    "pom.xml": POM,
    "src/main/java/demo/Calc.java": """package demo;

public class Calc {
    private final Scale scale = new Scale(1);

    public int add(int a, int b) {
        return scale.apply(a + b);
    }

    public int sub(int a, int b) {
        return a - b;
    }

    public int mul(int a, int b) {
        return a * b;
    }

    public double mul(double a, double b) {
        return a * b;
    }
}
""",
    "src/main/java/demo/Scale.java": """package demo;

public class Scale {
    private final int factor;

    public Scale(int factor) {
        this.factor = factor;
    }

    public int apply(int value) {
        return value * factor;
    }
}
""",
    "src/test/java/demo/CalcTest.java": """package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Ignore;
import org.junit.Test;

public class CalcTest {
    private final Calc calc = new Calc();

    @Test
    public void adds() {
        assertEquals(3, calc.add(1, 2));
    }

    @Test
    public void subtracts() {
        assertEquals(-1, calc.sub(1, 2));
    }

    @Test
    public void multipliesDoubles() {
        assertEquals(1.0, calc.mul(0.5, 2.0), 0.0);
    }

    @Ignore("never runs")
    @Test
    public void ignored() {
        assertEquals(0, calc.sub(1, 1));
    }
}
""",
    "src/test/java/demo/BaseCheck.java": """package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public abstract class BaseCheck {
    protected abstract Calc calc();

    @Test
    public void inheritedAdds() {
        assertEquals(4, calc().add(2, 2));
    }
}
""",
    "src/test/java/demo/SubCheckTest.java": """package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class SubCheckTest extends BaseCheck {
    @Override
    protected Calc calc() {
        return new Calc();
    }

    @Test
    public void scales() {
        assertEquals(6, new Scale(3).apply(2));
    }
}
""",
    "src/test/java/demo/LegacyTestCase.java": """package demo;

import junit.framework.TestCase;

public class LegacyTestCase extends TestCase {
    public void testMultiplies() {
        assertEquals(6, new Calc().mul(2, 3));
    }

    public void testSubtracts() {
        assertEquals(1, new Calc().sub(3, 2));
    }
}
""",
    "src/test/java/demo/OuterTest.java": """package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;
import org.junit.experimental.runners.Enclosed;
import org.junit.runner.RunWith;

@RunWith(Enclosed.class)
public class OuterTest {
    public static class Nested {
        @Test
        public void nestedAdds() {
            assertEquals(2, new Calc().add(1, 1));
        }
    }
}
""",
    "src/test/java/demo/Helper.java": """package demo;

public class Helper {
    public static Calc calc() {
        return new Calc();
    }
}
""",
}


JUPITER_POM = POM.replace("<artifactId>calc</artifactId>", "<artifactId>stack</artifactId>") \
    .replace("""      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>""", """      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.14.4</version>""")

# A JUnit 5 project (Jupiter on the JUnit Platform): a test, a parameterized test, a
# @Nested class; Stack's code is what they run.
JUPITER_FILES = {
    "pom.xml": JUPITER_POM,
    "src/main/java/demo/Stack.java": """package demo;

import java.util.ArrayList;
import java.util.List;

public class Stack {
    private final List<Integer> items = new ArrayList<>();

    public void push(int value) {
        items.add(value);
    }

    public int size() {
        return items.size();
    }

    public boolean isEmpty() {
        return items.isEmpty();
    }
}
""",
    "src/test/java/demo/StackTest.java": """package demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StackTest {
    @Test
    void startsEmpty() {
        assertTrue(new Stack().isEmpty());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void pushes(int value) {
        Stack stack = new Stack();
        stack.push(value);
        assertEquals(1, stack.size());
    }

    @Nested
    class WhenPushed {
        @Test
        void isNotEmpty() {
            Stack stack = new Stack();
            stack.push(1);
            assertEquals(1, stack.size());
        }
    }
}
""",
}


def write(root: Path, files: dict[str, str] | None = None) -> Path:
    for name, text in (FILES if files is None else files).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def mvn_available() -> bool:
    return shutil.which("mvn") is not None and shutil.which("javac") is not None


def warm() -> int:
    """Resolve every plugin and dependency the fixture's run needs (one real run), and
    JaCoCo's agent and core (what recording a map resolves)."""
    from warpline.runners.maven_jacoco import DEPENDENCY_PLUGIN, resolve_tools

    with tempfile.TemporaryDirectory(prefix="warpline-java-warm-") as tmp:
        codes = []
        for name, files in (("calc", FILES), ("stack", JUPITER_FILES)):
            root = write(Path(tmp) / name, files)
            codes.append(subprocess.run(["mvn", "-q", "-B", "test", DEPENDENCY_PLUGIN],
                                        cwd=root, check=False).returncode)
        resolve_tools(Path(tmp))
        resolve_tools(Path(tmp) / "platform", "1.14.4")
        return max(codes)


if __name__ == "__main__":
    if "--warm" in sys.argv:
        sys.exit(warm())
    print(__doc__)
