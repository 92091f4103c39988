// warpline's per-test coverage recorder for JUnit 4 (JUnit 3 classes run through it too):
// compiled with the JDK's javac when a map is recorded (warpline/runners/maven_jacoco.py)
// with WarplineCoverage.java, run under the JaCoCo agent in one JVM over the classes the
// project's own runner would run (each class the suite reaches, on its own).
//
//   JAVA_TOOL_OPTIONS=-javaagent:AGENT=destfile=CHILDREN,append=true \
//   java -cp CP WarplineJUnit OUT.jsonl CLASSDIRS CHILDREN CLASS...
// CLASSDIRS: the project's compiled class directories, joined by the path separator.
// CHILDREN: where JVMs a test starts (they inherit JAVA_TOOL_OPTIONS) write their execution
// data when they exit; it is read into the running test's and removed.
// OUT.jsonl: one JSON object a line:
//   {"test": "pkg.Class#method", "outcome": "passed|failed|skipped", "lines": {...}}
//   {"between": "pkg.Class", "lines": {...}}   (lines: "pkg/File.java" -> [line, ...])
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.jacoco.agent.rt.RT;
import org.junit.runner.*;
import org.junit.runner.notification.*;

public class WarplineJUnit {
    public static void main(String[] args) throws Exception {
        WarplineCoverage.out = new PrintWriter(
                Files.newBufferedWriter(Paths.get(args[0]), StandardCharsets.UTF_8));
        for (String dir : args[1].split(File.pathSeparator)) {
            if (!dir.isEmpty()) WarplineCoverage.classDirs.add(Paths.get(dir));
        }
        WarplineCoverage.children = Paths.get(args[2]);
        WarplineCoverage.agent = RT.getAgent();
        WarplineCoverage.agent.getExecutionData(true);  // what loading the launcher ran
        Files.deleteIfExists(WarplineCoverage.children);
        JUnitCore core = new JUnitCore();
        core.addListener(new Listener());
        int failures = 0;
        for (int i = 3; i < args.length; i++) {
            Class<?> cls;
            try {
                cls = Class.forName(args[i], false, WarplineJUnit.class.getClassLoader());
            } catch (Throwable e) {
                System.err.println("warpline: cannot load " + args[i] + ": " + e);
                continue;
            }
            // The suite is built once to learn the classes it runs; each is then run on its
            // own, so what building a class's runner executes (validation, a theory's
            // parameter types) counts for that class's tests, not for the suite's first.
            Runner suite = Request.aClass(cls).getRunner();
            Set<String> leaves = new LinkedHashSet<>();
            collect(suite.getDescription(), leaves);
            WarplineCoverage.dumpBetween(args[i]);
            for (String leaf : leaves) {
                Class<?> one;
                try {
                    one = Class.forName(leaf, false, WarplineJUnit.class.getClassLoader());
                } catch (Throwable e) {
                    System.err.println("warpline: cannot load " + leaf + ": " + e);
                    continue;
                }
                Result result = core.run(Request.aClass(one));
                failures += result.getFailureCount();
                WarplineCoverage.dumpBetween(leaf);
            }
        }
        WarplineCoverage.out.close();
        System.exit(failures == 0 ? 0 : 1);
    }

    /** The classes of the tests under ``d``, in the order the suite runs them. */
    static void collect(Description d, Set<String> out) {
        if (d.isTest()) {
            if (d.getClassName() != null) out.add(d.getClassName());
            return;
        }
        for (Description child : d.getChildren()) collect(child, out);
    }

    static class Listener extends RunListener {
        final Map<Description, String> outcome = new HashMap<>();

        @Override public void testStarted(Description d) throws Exception {
            WarplineCoverage.dumpBetween(d.getClassName());
            outcome.put(d, "passed");
        }

        @Override public void testFailure(Failure f) {
            outcome.put(f.getDescription(), "failed");
        }

        @Override public void testAssumptionFailure(Failure f) {
            outcome.put(f.getDescription(), "skipped");
        }

        @Override public void testIgnored(Description d) {
            // not run: no coverage, no outcome worth a test of the map
        }

        @Override public void testFinished(Description d) throws Exception {
            String id = d.getClassName() + "#" + d.getMethodName();
            WarplineCoverage.write("\"test\": " + WarplineCoverage.quote(id) + ", \"outcome\": "
                    + WarplineCoverage.quote(outcome.getOrDefault(d, "passed")), WarplineCoverage.take());
        }
    }
}
