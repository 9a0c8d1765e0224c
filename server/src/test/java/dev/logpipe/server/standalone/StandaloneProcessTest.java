package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.server.cli.LogpipeCommand;
import dev.logpipe.server.cli.StandaloneCommand;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.Integration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code logpipe standalone} as a real process (the CLI's main with this test's class path): start, ingest over
 * HTTP, SIGTERM, a clean stop within seconds (exit 0), restart on the same data directory with the same key, Ctrl-C
 * (SIGINT: exit 0 too).
 */
@Integration
class StandaloneProcessTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "process-default-key-0123456789";

    @TempDir
    Path dir;

    private ChildJvm start(String name) {
        return ChildJvm.start(
                dir,
                name,
                LogpipeCommand.class.getName(),
                List.of("-Xmx384m"),
                List.of("standalone", "--data", dir.resolve("data").toString(), "--port", "0", "--broker-port", "0"),
                Map.of("LOGPIPE_API_KEY", KEY));
    }

    /** The base URL from the ready line, once the child printed it (fails with its stderr if it exits first). */
    private static String awaitReady(ChildJvm child) {
        String stdout = child.awaitStdout(StandaloneCommand.READY_PREFIX, Duration.ofSeconds(60));
        return stdout.lines()
                .filter(line -> line.startsWith(StandaloneCommand.READY_PREFIX))
                .findFirst()
                .orElseThrow()
                .substring(StandaloneCommand.READY_PREFIX.length())
                .replaceAll("/$", "");
    }

    private static long queryable(String base) throws Exception {
        return JSON.readTree(Http.get(base + "/api/v1/indexer/status", null).body())
                .path("totals")
                .path("queryable")
                .asLong();
    }

    @Test
    void sigtermStopsInOrderWithinSecondsAndARestartKeepsKeysAndRecords() throws Exception {
        try (ChildJvm first = start("first")) {
            String base = awaitReady(first);
            // the warm-up (on by default) ran before the port opened and the ready line was printed
            String started = first.stderr();
            assertThat(started).contains("warming up").contains("warm-up done in");
            assertThat(started.indexOf("warm-up done in")).isLessThan(started.indexOf("standalone ready in"));
            // the key was supplied through LOGPIPE_API_KEY: never printed; the admin key made here is, once
            String banner = Files.readString(dir.resolve("first.stdout"));
            assertThat(banner)
                    .contains("tenant default API key")
                    .contains("taken from LOGPIPE_API_KEY")
                    .doesNotContain(KEY)
                    .contains("curl -sS")
                    .contains("admin key (shown only now");
            assertThat(Files.readString(dir.resolve("first.stderr"))).doesNotContain(KEY);
            for (String secret : List.of("data/keys.json", "data/query-cursor.key")) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(secret))))
                        .as(secret)
                        .isEqualTo("rw-------");
            }
            assertThat(Http.post(base + "/api/v1/logs", KEY, "{\"message\":\"one\"}\n{\"message\":\"two\"}\n")
                            .status())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> queryable(base) >= 1);
            long before = queryable(base);
            long t0 = System.nanoTime();
            // SIGTERM; fails if it has not stopped within 15 s; a clean stop is exit 0, not the JVM's 143
            assertThat(first.terminate(Duration.ofSeconds(15))).isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(15));
            String err = Files.readString(dir.resolve("first.stderr"));
            assertThat(err)
                    .contains("collector stopped")
                    .contains("indexer stopped")
                    .contains("standalone stopped");
            assertThat(err.indexOf("collector stopped")).isLessThan(err.indexOf("indexer stopped"));
            assertThat(err.indexOf("indexer stopped")).isLessThan(err.indexOf("broker on"));

            try (ChildJvm second = start("second")) {
                String base2 = awaitReady(second);
                assertThat(Files.readString(dir.resolve("second.stdout")))
                        .doesNotContain("first start")
                        .doesNotContain(KEY);
                assertThat(Http.post(base2 + "/api/v1/logs", KEY, "{\"message\":\"three\"}\n")
                                .status())
                        .isEqualTo(200);
                await().atMost(Duration.ofSeconds(30)).until(() -> queryable(base2) > before);
                // found through the query API after the restart: the records from before and the new one
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> JSON.readTree(Http.get(
                                                        base2
                                                                + "/api/v1/search?from=now-1h&q=one%20OR%20two%20OR%20three",
                                                        KEY)
                                                .body())
                                        .path("hits")
                                        .size()
                                == 3);
                // Ctrl-C: the same clean stop, exit 0 as standalone --help promises (not the JVM's 130)
                assertThat(second.interrupt(Duration.ofSeconds(20))).isZero();
                assertThat(Files.readString(dir.resolve("second.stderr"))).contains("standalone stopped");
            }
        }
    }
}
