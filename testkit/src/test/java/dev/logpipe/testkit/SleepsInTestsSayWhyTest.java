package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A test never sleeps to wait for something to happen (that is Awaitility's job, or an injected clock's). The few
 * plain sleeps the tests have are not waits: they pace load, pick a random kill point, play a slow engine or park a
 * child until it is killed. Each says which in a {@code // sleep: <kind>: why} comment on its line or the line above,
 * so a new sleep is a choice someone made and a reader sees it is not a hope.
 */
class SleepsInTestsSayWhyTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern SLEEP = Pattern.compile(
            "\\b(Thread\\.sleep|(TimeUnit\\.)?(NANO|MICRO|MILLI)?SECONDS\\.sleep|MINUTES\\.sleep|LockSupport\\.parkNanos)\\(");
    private static final Pattern REASON = Pattern.compile("// sleep: (pacing|kill point|slow seam|parked): \\S");

    @Test
    void everySleepInATestSaysWhichKindOfNonWaitItIs() throws IOException {
        List<String> unexplained = new ArrayList<>();
        for (Path file : testSources()) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                boolean explained = REASON.matcher(lines.get(i)).find()
                        || (i > 0 && REASON.matcher(lines.get(i - 1)).find());
                if (SLEEP.matcher(lines.get(i)).find() && !explained) {
                    unexplained.add(ROOT.relativize(file) + ":" + (i + 1));
                }
            }
        }
        assertThat(unexplained)
                .as("sleeps in tests without a `// sleep: pacing|kill point|slow seam|parked: why` comment; to wait"
                        + " for a condition use Awaitility or an injected clock instead")
                .isEmpty();
    }

    @Test
    void theCheckFindsAnUnexplainedSleep() {
        assertThat(SLEEP.matcher("        Thread.sleep(100);").find()).isTrue();
        assertThat(SLEEP.matcher("        SECONDS.sleep(1);").find()).isTrue();
        assertThat(SLEEP.matcher("        TimeUnit.MILLISECONDS.sleep(1);").find())
                .isTrue();
        assertThat(SLEEP.matcher("        LockSupport.parkNanos(1_000);").find())
                .isTrue();
        assertThat(REASON.matcher("        Thread.sleep(100); // let it settle").find())
                .isFalse();
        assertThat(REASON.matcher("        // sleep: pacing: the producer's rate")
                        .find())
                .isTrue();
    }

    private static List<Path> testSources() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(d -> Files.isDirectory(d.resolve("src/test/java")))
                    .sorted()
                    .toList()) {
                try (Stream<Path> all = Files.walk(module.resolve("src/test/java"))) {
                    all.filter(p -> p.toString().endsWith(".java"))
                            .filter(p -> !p.getFileName().toString().equals("SleepsInTestsSayWhyTest.java"))
                            .forEach(files::add);
                }
            }
        }
        return files;
    }
}
