package dev.logpipe.forwarder.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.logpipe.forwarder.RunningLoop;
import dev.logpipe.forwarder.config.ConfigLoader;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The example configs of examples/ load, and each format's example runs on its sample logs. */
class ExampleConfigsTest {
    private static final Path EXAMPLES =
            Path.of("..", "examples").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    private void copyExamples() throws IOException {
        try (Stream<Path> files = Files.walk(EXAMPLES)) {
            for (Path p : files.toList()) {
                Path target =
                        dir.resolve("examples").resolve(EXAMPLES.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    @Test
    void everyExampleConfigLoads() throws Exception {
        try (Stream<Path> files = Files.walk(EXAMPLES)) {
            List<Path> configs = files.filter(p -> p.toString().endsWith(".yaml"))
                    // The other roles' configs (collector, indexer, query) are not forwarder configs.
                    .filter(p -> !List.of("collector.yaml", "indexer.yaml", "query.yaml")
                            .contains(p.getFileName().toString()))
                    .toList();
            assertThat(configs).hasSizeGreaterThanOrEqualTo(7);
            for (Path c : configs) {
                String yaml = Files.readString(c).replaceAll("token_env: \\S+", "token: example");
                new ConfigLoader(dir).parse(yaml, c.toString());
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "json.yaml,4",
        "logfmt.yaml,3",
        "cri.yaml,4",
        "docker.yaml,3",
        "text-with-time.yaml,2",
        "mixed-sources.yaml,7"
    })
    void eachFormatsExampleRunsOnItsSampleLogs(String config, int records) throws Exception {
        copyExamples();
        String yaml = Files.readString(dir.resolve("examples/formats").resolve(config))
                .replace("  state:\n", "  poll: 20ms\n  scan_interval: 50ms\n  state:\n");
        NdjsonRecordingSink sink = new NdjsonRecordingSink();
        try (RunningLoop loop = RunningLoop.start(dir, yaml, sink)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> sink.records().size() >= records);
            await().pollDelay(Duration.ofMillis(300)).until(() -> true);
            List<LogRecord> got = sink.records();
            assertThat(got).hasSize(records);
            assertThat(got).allSatisfy(r -> assertThat(r.eventTime()).isNotNull());
            assertThat(loop.metrics().timeParseFailures.count()).isZero();
            switch (config) {
                case "json.yaml" -> {
                    assertThat(got.get(2).message()).startsWith("payment declined\ncom.example.checkout");
                    assertThat(got.get(2).level()).isEqualTo(Level.ERROR);
                    assertThat(got.get(3).eventTime()).isEqualTo(Instant.parse("2026-12-01T07:00:02.417Z"));
                }
                case "cri.yaml" -> {
                    assertThat(got).extracting(LogRecord::service).containsOnly("api");
                    assertThat(got.get(2).fields()).containsEntry("order_id", "CO-9932");
                    assertThat(got.get(3).fields()).containsKey("log.parse_error");
                    assertThat(loop.metrics().parseFailures.count()).isEqualTo(1);
                }
                case "docker.yaml" ->
                    assertThat(got.get(1).message())
                            .isEqualTo("WARN a line Docker split at 16 KiB: first piece and the rest");
                case "mixed-sources.yaml" -> {
                    assertThat(got)
                            .filteredOn(r -> "gateway".equals(r.service()))
                            .hasSize(3);
                    assertThat(got)
                            .anySatisfy(r -> assertThat(r.message()).startsWith("payment declined\ncom.example"));
                    assertThat(loop.metrics().parseFailures.count()).isZero();
                }
                case "text-with-time.yaml" ->
                    assertThat(got.get(1).eventTime()).isEqualTo(Instant.parse("2026-12-01T08:00:03.877Z"));
                default -> assertThat(loop.metrics().parseFailures.count()).isZero();
            }
        }
    }
}
