// warpline's per-test coverage recorder for JUnit 4 (JUnit 3 classes run through it too):
// compiled with the JDK's javac when a map is recorded (warpline/runners/maven_jacoco.py), run
// under the JaCoCo agent (output=none) in one JVM over the classes the project's own runner
// would run. After each test, the agent's execution data is taken and reset through its
// runtime API; org.jacoco.core maps it to source lines. What ran between tests (a class's
// @BeforeClass, static initializers) is kept per test class and counted for each of its
// tests by warpline.
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
import org.jacoco.agent.rt.IAgent;
import org.jacoco.agent.rt.RT;
import org.jacoco.core.analysis.*;
import org.jacoco.core.data.*;
import org.jacoco.core.tools.ExecFileLoader;
import org.junit.runner.*;
import org.junit.runner.notification.*;

public class WarplineJUnit {
    static IAgent agent;
    static List<Path> classDirs = new ArrayList<>();
    static Map<String, byte[]> classBytes = new HashMap<>();
    static PrintWriter out;
    static Path children;

    public static void main(String[] args) throws Exception {
        out = new PrintWriter(Files.newBufferedWriter(Paths.get(args[0]), StandardCharsets.UTF_8));
        for (String dir : args[1].split(File.pathSeparator)) if (!dir.isEmpty()) classDirs.add(Paths.get(dir));
        children = Paths.get(args[2]);
        agent = RT.getAgent();
        agent.getExecutionData(true);  // what loading the launcher ran
        Files.deleteIfExists(children);
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
            dumpBetween(args[i]);
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
                dumpBetween(leaf);
            }
        }
        out.close();
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
            dumpBetween(d.getClassName());
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
            write("\"test\": " + quote(id) + ", \"outcome\": " + quote(outcome.getOrDefault(d, "passed")), take());
        }
    }

    static void dumpBetween(String className) throws IOException {
        Map<String, Set<Integer>> lines = take();
        if (!lines.isEmpty()) write("\"between\": " + quote(className), lines);
    }

    /** The execution data since the last call (reset), as covered lines per source file.
     *  A class's lines are analysed once per distinct set of probes hit (tests of one class
     *  hit the same runner code the same way): org.jacoco.core reads the class once then. */
    static Map<String, Set<Integer>> take() throws IOException {
        byte[] data = agent.getExecutionData(true);
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new ByteArrayInputStream(data));
        if (Files.isRegularFile(children)) {  // JVMs this test started, ended by now
            try {
                loader.load(new ByteArrayInputStream(Files.readAllBytes(children)));
            } catch (IOException e) {
                // a child still writing, or a torn file: its lines are not counted
            }
            Files.deleteIfExists(children);
        }
        Map<String, Set<Integer>> lines = new TreeMap<>();
        for (ExecutionData ed : loader.getExecutionDataStore().getContents()) {
            if (!ed.hasHits()) continue;
            String key = ed.getName() + "@" + ed.getId() + "@" + bits(ed.getProbes());
            Map<String, Set<Integer>> found = analysed.get(key);
            if (found == null) {
                found = analyse(ed);
                analysed.put(key, found);
            }
            for (Map.Entry<String, Set<Integer>> e : found.entrySet()) {
                lines.computeIfAbsent(e.getKey(), k -> new TreeSet<>()).addAll(e.getValue());
            }
        }
        return lines;
    }

    static final Map<String, Map<String, Set<Integer>>> analysed = new HashMap<>();

    static String bits(boolean[] probes) {
        StringBuilder sb = new StringBuilder(probes.length);
        for (boolean p : probes) sb.append(p ? '1' : '0');
        return sb.toString();
    }

    static Map<String, Set<Integer>> analyse(ExecutionData ed) {
        Map<String, Set<Integer>> lines = new TreeMap<>();
        byte[] bytes = bytesOf(ed.getName());
        if (bytes == null) return lines;
        ExecutionDataStore one = new ExecutionDataStore();
        one.put(ed);
        CoverageBuilder builder = new CoverageBuilder();
        try {
            new Analyzer(one, builder).analyzeClass(bytes, ed.getName());
        } catch (IOException e) {
            return lines;  // a class changed since it ran (another version on the class path)
        }
        for (IClassCoverage cc : builder.getClasses()) {
            if (cc.getSourceFileName() == null || cc.getFirstLine() < 0) continue;
            String pkg = cc.getPackageName();
            String file = (pkg.isEmpty() ? "" : pkg + "/") + cc.getSourceFileName();
            for (int line = cc.getFirstLine(); line <= cc.getLastLine(); line++) {
                int status = cc.getLine(line).getStatus();
                if (status == ICounter.FULLY_COVERED || status == ICounter.PARTLY_COVERED) {
                    lines.computeIfAbsent(file, k -> new TreeSet<>()).add(line);
                }
            }
        }
        return lines;
    }

    static byte[] bytesOf(String name) {
        if (classBytes.containsKey(name)) return classBytes.get(name);
        byte[] found = null;
        for (Path dir : classDirs) {
            Path p = dir.resolve(name + ".class");
            if (Files.isRegularFile(p)) {
                try { found = Files.readAllBytes(p); } catch (IOException e) { found = null; }
                break;
            }
        }
        classBytes.put(name, found);
        return found;
    }

    static void write(String head, Map<String, Set<Integer>> lines) {
        StringBuilder sb = new StringBuilder("{").append(head).append(", \"lines\": {");
        boolean first = true;
        for (Map.Entry<String, Set<Integer>> e : lines.entrySet()) {
            if (!first) sb.append(", ");
            first = false;
            sb.append(quote(e.getKey())).append(": [");
            boolean f2 = true;
            for (int line : e.getValue()) {
                if (!f2) sb.append(',');
                f2 = false;
                sb.append(line);
            }
            sb.append(']');
        }
        out.println(sb.append("}}"));
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }
}
