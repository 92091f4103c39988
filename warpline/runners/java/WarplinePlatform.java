// warpline's per-test coverage recorder for the JUnit Platform (JUnit 5's Jupiter, and
// JUnit 4 through the vintage engine where the project has it): the Platform's own
// launcher API, one TestExecutionListener, the same recording as WarplineCoverage.java (whose
// helpers it reuses: the agent's execution data taken after each test, lines through
// org.jacoco.core, JVMs a test starts, what ran between a class's tests).
//
//   JAVA_TOOL_OPTIONS=-javaagent:AGENT=destfile=CHILDREN,append=true \
//   java -cp CP WarplinePlatform OUT.jsonl CLASSDIRS CHILDREN CLASS...
import java.nio.file.*;
import java.util.*;
import org.jacoco.agent.rt.RT;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.*;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

public class WarplinePlatform {
    public static void main(String[] args) throws Exception {
        WarplineCoverage.out = new java.io.PrintWriter(Files.newBufferedWriter(Paths.get(args[0]),
                java.nio.charset.StandardCharsets.UTF_8));
        for (String dir : args[1].split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) WarplineCoverage.classDirs.add(Paths.get(dir));
        }
        WarplineCoverage.children = Paths.get(args[2]);
        WarplineCoverage.agent = RT.getAgent();
        WarplineCoverage.agent.getExecutionData(true);
        Files.deleteIfExists(WarplineCoverage.children);
        Launcher launcher = LauncherFactory.create();
        Listener listener = new Listener();
        for (int i = 3; i < args.length; i++) {
            // each class on its own: what its engine runs before its first test (a
            // class's @BeforeAll, building its tests) counts for its tests
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(DiscoverySelectors.selectClass(args[i])).build();
            launcher.execute(request, listener);
            WarplineCoverage.dumpBetween(args[i]);
        }
        WarplineCoverage.out.close();
        System.exit(listener.failures == 0 ? 0 : 1);
    }

    static class Listener implements TestExecutionListener {
        int failures;

        static String[] names(TestIdentifier id) {
            Optional<TestSource> source = id.getSource();
            if (source.isPresent() && source.get() instanceof MethodSource) {
                MethodSource m = (MethodSource) source.get();
                return new String[] {m.getClassName(), m.getMethodName()};
            }
            if (source.isPresent() && source.get() instanceof ClassSource) {
                return new String[] {((ClassSource) source.get()).getClassName(), null};
            }
            return null;
        }

        @Override public void executionStarted(TestIdentifier id) {
            String[] names = names(id);
            if (!id.isTest() || names == null) return;
            try {
                WarplineCoverage.dumpBetween(names[0]);
            } catch (java.io.IOException e) {
                throw new RuntimeException(e);
            }
        }

        @Override public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            String[] names = names(id);
            if (!id.isTest() || names == null || names[1] == null) return;
            String outcome;
            switch (result.getStatus()) {
                case SUCCESSFUL: outcome = "passed"; break;
                case ABORTED: outcome = "skipped"; break;
                default: outcome = "failed"; failures++;
            }
            try {
                WarplineCoverage.write("\"test\": " + WarplineCoverage.quote(names[0] + "#" + names[1])
                        + ", \"outcome\": " + WarplineCoverage.quote(outcome), WarplineCoverage.take());
            } catch (java.io.IOException e) {
                throw new RuntimeException(e);
            }
        }
    }
}
