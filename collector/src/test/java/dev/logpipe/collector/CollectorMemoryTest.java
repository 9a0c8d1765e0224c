package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.testkit.ChildJvm;
import dev.logpipe.testkit.FreePort;
import dev.logpipe.testkit.Integration;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collector child JVM with a 160 MB heap and {@code in_flight_bytes: 48MiB} against compressed bodies that expand
 * to 63 MB each, posted alone and many at once: the bound holds for real memory, so no request ends in an
 * {@code OutOfMemoryError} or a 500, and a body larger than the bound itself is served on an idle collector
 * instead of being told to retry forever.
 */
@Integration
class CollectorMemoryTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @TempDir
    Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * 63 MB once decoded: 1 KiB lines of spaces (blank: nothing to publish, everything to decode) with {@code records}
     * real records spread among them; a few hundred KB on the wire.
     */
    private static byte[] expandingBody(String tag, int records) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        byte[] blank = (" ".repeat(1023) + "\n").getBytes(StandardCharsets.US_ASCII);
        int lines = 63 * 1024;
        int every = lines / records;
        try (GZIPOutputStream gz = new GZIPOutputStream(bos, 64 * 1024)) {
            for (int i = 0; i < lines; i++) {
                if (i % every == 0 && i / every < records) {
                    gz.write(("{\"message\":\"" + tag + " " + (i / every) + "\"}\n").getBytes(StandardCharsets.UTF_8));
                } else {
                    gz.write(blank);
                }
            }
        }
        return bos.toByteArray();
    }

    private HttpResponse<String> post(int port, byte[] gzipped) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/logs"))
                        .timeout(Duration.ofSeconds(120))
                        .header("Authorization", "Bearer " + ACME_KEY)
                        .header("Content-Encoding", "gzip")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(gzipped))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void expandingBodiesNeverExhaustTheHeapAndABodyLargerThanTheBoundIsServed() throws Exception {
        int port = FreePort.pick();
        Path config = dir.resolve("collector.yaml");
        Files.writeString(config, """
                listen: 127.0.0.1:%d
                limits:
                  max_body_bytes: 4MiB
                  max_decoded_bytes: 64MiB
                  max_record_bytes: 64KiB
                  in_flight_bytes: 48MiB
                tenants:
                  - id: acme
                    api_key_sha256: [%s]
                kafka:
                  bootstrap_servers: %s
                  topic: memory.records
                  dead_letter_topic: memory.dead-letter
                  partitions: 2
                  replication_factor: 1
                  min_insync_replicas: 1
                  properties:
                    buffer.memory: "16777216"
                """.formatted(port, ApiKeys.sha256(ACME_KEY), KAFKA.bootstrapServers()));
        try (ChildJvm child = ChildJvm.start(
                dir,
                "collector",
                "dev.logpipe.collector.cli.CollectorCommand",
                List.of("-Xmx160m", "-XX:+ExitOnOutOfMemoryError"),
                List.of("--config", config.toString()))) {
            child.awaitStderr("collector ready", Duration.ofSeconds(60));

            // Alone, on an idle collector: 63 MB decoded is more than the whole 48 MiB bound, and it is served.
            HttpResponse<String> alone = post(port, expandingBody("m1 alone", 200));
            assertThat(alone.statusCode()).as(alone.body()).isEqualTo(200);
            assertThat(JSON.readTree(alone.body()).get("accepted").asInt()).isEqualTo(200);

            // Twelve at once: each answered 200, or 503 with Retry-After when the bound is reached; never a 500.
            byte[] body = expandingBody("m2 parallel", 100);
            ExecutorService pool = Executors.newFixedThreadPool(12);
            List<Future<HttpResponse<String>>> replies = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                replies.add(pool.submit(() -> post(port, body)));
            }
            int served = 0;
            for (Future<HttpResponse<String>> f : replies) {
                HttpResponse<String> r = f.get();
                assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
                if (r.statusCode() == 503) {
                    assertThat(r.headers().firstValue("Retry-After")).isPresent();
                } else {
                    served++;
                    assertThat(JSON.readTree(r.body()).get("accepted").asInt()).isEqualTo(100);
                }
            }
            pool.shutdown();
            assertThat(served).as("bodies served at once").isGreaterThan(0);
            assertThat(child.isAlive())
                    .as("the collector survived (it exits on OutOfMemoryError)")
                    .isTrue();
            assertThat(child.stderr()).doesNotContain("OutOfMemoryError");
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(metrics).doesNotContain("status=\"500\"");
            assertThat(metrics).contains("logpipe_collector_in_flight_bytes 0.0");
        }
    }
}
