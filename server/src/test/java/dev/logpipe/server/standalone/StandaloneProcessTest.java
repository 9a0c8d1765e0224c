package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.server.cli.StandaloneCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code logpipe standalone} as a real process (the CLI's main with this test's class path): start, ingest over
 * HTTP, SIGTERM, a clean stop within seconds, restart on the same data directory with the same key.
 */
class StandaloneProcessTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "process-default-key-0123456789";

    @TempDir
    Path dir;

    private Process start(String name) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.logpipe.server.cli.LogpipeCommand",
                "standalone",
                "--data",
                dir.resolve("data").toString(),
                "--port",
                "0",
                "--broker-port",
                "0"));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectOutput(dir.resolve(name + ".stdout").toFile())
                .redirectError(dir.resolve(name + ".stderr").toFile());
        pb.environment().put("LOGPIPE_API_KEY", KEY);
        return pb.start();
    }

    private String awaitReady(Process p, String name) {
        Path out = dir.resolve(name + ".stdout");
        String[] url = new String[1];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            assertThat(p.isAlive())
                    .as("standalone alive; stderr: %s", Files.readString(dir.resolve(name + ".stderr")))
                    .isTrue();
            for (String line : Files.readAllLines(out)) {
                if (line.startsWith(StandaloneCommand.READY_PREFIX)) {
                    url[0] = line.substring(StandaloneCommand.READY_PREFIX.length())
                            .replaceAll("/$", "");
                    return true;
                }
            }
            return false;
        });
        return url[0];
    }

    private static long queryable(String base) throws Exception {
        return JSON.readTree(Http.get(base + "/api/v1/indexer/status", null).body())
                .path("totals")
                .path("queryable")
                .asLong();
    }

    @Test
    void sigtermStopsInOrderWithinSecondsAndARestartKeepsKeysAndRecords() throws Exception {
        Process first = start("first");
        try {
            String base = awaitReady(first, "first");
            assertThat(Files.readString(dir.resolve("first.stdout")))
                    .contains("tenant default API key")
                    .contains(KEY)
                    .contains("curl -sS");
            assertThat(Http.post(base + "/api/v1/logs", KEY, "{\"message\":\"one\"}\n{\"message\":\"two\"}\n")
                            .status())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> queryable(base) >= 1);
            long before = queryable(base);
            long t0 = System.nanoTime();
            first.destroy(); // SIGTERM
            assertThat(first.waitFor(15, TimeUnit.SECONDS))
                    .as("stopped within 15 s")
                    .isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(15));
            String err = Files.readString(dir.resolve("first.stderr"));
            assertThat(err)
                    .contains("collector stopped")
                    .contains("indexer stopped")
                    .contains("standalone stopped");
            assertThat(err.indexOf("collector stopped")).isLessThan(err.indexOf("indexer stopped"));
            assertThat(err.indexOf("indexer stopped")).isLessThan(err.indexOf("broker on"));

            Process second = start("second");
            try {
                String base2 = awaitReady(second, "second");
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
            } finally {
                second.destroy();
                second.waitFor(20, TimeUnit.SECONDS);
            }
        } finally {
            first.destroyForcibly();
        }
    }
}
