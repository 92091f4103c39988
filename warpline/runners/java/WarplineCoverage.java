// The recording both of warpline's launchers share (WarplineJUnit for JUnit 4,
// WarplinePlatform for the JUnit Platform): the JaCoCo agent's execution data taken after
// each test through its runtime API, mapped to source lines with org.jacoco.core (a class
// analysed once per set of probes hit), JVMs a test starts read from their own dump, one
// JSON line per test or per class's between-tests data.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.jacoco.agent.rt.IAgent;
import org.jacoco.core.analysis.*;
import org.jacoco.core.data.*;
import org.jacoco.core.tools.ExecFileLoader;

public class WarplineCoverage {
    static IAgent agent;
    static List<Path> classDirs = new ArrayList<>();
    static Map<String, byte[]> classBytes = new HashMap<>();
    static PrintWriter out;
    static Path children;

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
