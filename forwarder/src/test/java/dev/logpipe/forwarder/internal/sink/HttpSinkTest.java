package dev.logpipe.forwarder.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.ZstdInputStream;
import com.sun.net.httpserver.HttpServer;
import dev.logpipe.forwarder.RunningLoop;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP sink against a real HTTP server on 127.0.0.1 that answers with scripted statuses. */
class HttpSinkTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    record Request(long atNanos, String authorization, String encoding, List<String> messages) {}

    private HttpServer server;
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    /** Statuses to answer with, in order; 200 once it runs out. Each entry: status or status:retryAfter. */
    private final ConcurrentLinkedQueue<String> script = new ConcurrentLinkedQueue<>();

    private RunningLoop loop;
    private ForwarderMetrics metrics;

    @BeforeEach
    void startServer() throws IOException {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/api/v1/logs", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            String enc = ex.getRequestHeaders().getFirst("Content-Encoding");
            if ("gzip".equals(enc)) {
                body = new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();
            } else if ("zstd".equals(enc)) {
                body = new ZstdInputStream(new ByteArrayInputStream(body)).readAllBytes();
            }
            List<String> messages = new ArrayList<>();
            for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
                messages.add(JSON.readTree(line).get("message").asText());
            }
            requests.add(
                    new Request(System.nanoTime(), ex.getRequestHeaders().getFirst("Authorization"), enc, messages));
            String next = script.poll();
            int status = next == null ? 200 : Integer.parseInt(next.split(":")[0]);
            if (next != null && next.contains(":")) {
                ex.getResponseHeaders().set("Retry-After", next.split(":")[1]);
            }
            byte[] resp = (status == 200
                            ? "{\"accepted\":" + messages.size() + "}"
                            : "{\"error\":\"scripted " + status + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, resp.length);
            ex.getResponseBody().write(resp);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (loop != null) {
            loop.close();
        }
        server.stop(0);
    }

    private void start(String extraHttp) throws Exception {
        String yaml = RunningLoop.WATCH + """
                sink:
                  type: http
                  http:
                    url: http://127.0.0.1:%d/api/v1/logs
                    token: secret-key
                    dead_letter_path: ./dead/letters.ndjson
                """.formatted(server.getAddress().getPort()) + extraHttp;
        loop = RunningLoop.start(dir, yaml);
        metrics = loop.metrics();
    }

    private Path log(String... lines) throws IOException {
        Files.createDirectories(dir.resolve("logs"));
        Path p = dir.resolve("logs/app.log");
        Files.writeString(p, String.join("\n", lines) + "\n");
        return p;
    }

    private long watermark(Path p) {
        return loop.watermark(p);
    }

    @Test
    void acknowledgedPostAdvancesTheWatermarkAndCarriesTokenAndGzip() throws Exception {
        Path p = log("one", "two", "three");
        start("");
        await().atMost(Duration.ofSeconds(10)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests).hasSize(1);
        Request r = requests.get(0);
        assertThat(r.messages()).containsExactly("one", "two", "three");
        assertThat(r.authorization()).isEqualTo("Bearer secret-key");
        assertThat(r.encoding()).isEqualTo("gzip");
    }

    @ParameterizedTest
    @CsvSource({"zstd,zstd", "none,"})
    void otherCompressionsSendTheirContentEncoding(String compression, String expectedEncoding) throws Exception {
        Path p = log("one", "two", "three");
        start("    compression: " + compression + "\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests).hasSize(1);
        assertThat(requests.get(0).messages()).containsExactly("one", "two", "three");
        assertThat(requests.get(0).encoding()).isEqualTo(expectedEncoding);
    }

    @Test
    void tooManyRequestsAndUnavailableAreRetriedHonouringRetryAfter() throws Exception {
        script.add("429:1");
        script.add("503");
        Path p = log("a", "b");
        start("");
        await().atMost(Duration.ofSeconds(15)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests).hasSize(3);
        assertThat(requests).allSatisfy(r -> assertThat(r.messages()).containsExactly("a", "b"));
        long waitedNanos = requests.get(1).atNanos() - requests.get(0).atNanos();
        assertThat(waitedNanos).as("Retry-After: 1 is honoured").isGreaterThanOrEqualTo(950_000_000L);
        assertThat(metrics.publishFailures.count()).isEqualTo(2);
        assertThat(metrics.recordsDeadLettered.count()).isZero();
    }

    @Test
    void watermarkStaysWhileTheServerRefusesAndNothingIsDropped() throws Exception {
        for (int i = 0; i < 3; i++) {
            script.add("503");
        }
        Path p = log("x");
        start("");
        await().atMost(Duration.ofSeconds(10)).until(() -> requests.size() >= 2);
        assertThat(watermark(p)).isZero();
        await().atMost(Duration.ofSeconds(15)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests.get(requests.size() - 1).messages()).containsExactly("x");
    }

    @Test
    void permanentRejectionGoesToTheDeadLetterFileCountedAndTheWatermarkMovesOn() throws Exception {
        script.add("400");
        Path p = log("bad 1", "bad 2");
        start("");
        await().atMost(Duration.ofSeconds(10)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests).hasSize(1);
        assertThat(metrics.recordsDeadLettered.count()).isEqualTo(2);
        List<String> dead = Files.readAllLines(dir.resolve("dead/letters.ndjson"));
        assertThat(dead).hasSize(2);
        JsonNode first = JSON.readTree(dead.get(0));
        assertThat(first.get("status").asInt()).isEqualTo(400);
        assertThat(first.get("response").asText()).contains("scripted 400");
        assertThat(first.get("record").get("message").asText()).isEqualTo("bad 1");
        assertThat(first.get("source").asText()).isEqualTo(p.toString());
    }

    @Test
    void batchIsSplitByMaxRecordsAndAcknowledgedRequestsAreNotResent() throws Exception {
        script.add("200");
        script.add("503");
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 7; i++) {
            lines.add("line " + i);
        }
        Path p = log(lines.toArray(String[]::new));
        start("    max_records: 3\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests)
                .extracting(Request::messages)
                .containsExactly(
                        List.of("line 1", "line 2", "line 3"),
                        List.of("line 4", "line 5", "line 6"),
                        List.of("line 4", "line 5", "line 6"),
                        List.of("line 7"));
    }

    @Test
    void rejectedCredentialStallsInsteadOfDeadLettering() throws Exception {
        script.add("401");
        script.add("403");
        Path p = log("secret stuff");
        start("");
        await().atMost(Duration.ofSeconds(15)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests).hasSize(3);
        assertThat(metrics.recordsDeadLettered.count()).isZero();
        assertThat(dir.resolve("dead/letters.ndjson")).doesNotExist();
    }

    @Test
    void payloadTooLargeIsRetriedInSmallerRequestsAndASingleOversizedRecordIsDeadLettered() throws Exception {
        script.add("413");
        script.add("413");
        script.add("200");
        script.add("200");
        script.add("413");
        Path p = log("r1", "r2", "r3", "r4");
        start("");
        await().atMost(Duration.ofSeconds(15)).until(() -> watermark(p) == Files.size(p));
        assertThat(requests)
                .extracting(Request::messages)
                .containsExactly(
                        List.of("r1", "r2", "r3", "r4"),
                        List.of("r1", "r2"),
                        List.of("r1"),
                        List.of("r2"),
                        List.of("r3"),
                        List.of("r4"));
        assertThat(metrics.recordsDeadLettered.count()).isEqualTo(1);
        assertThat(Files.readAllLines(dir.resolve("dead/letters.ndjson")))
                .singleElement()
                .satisfies(l -> assertThat(
                                JSON.readTree(l).get("record").get("message").asText())
                        .isEqualTo("r3"));
    }

    @Test
    void fullDeadLetterFileStallsInsteadOfGrowingOrDropping() throws Exception {
        Files.createDirectories(dir.resolve("dead"));
        Files.write(dir.resolve("dead/letters.ndjson"), new byte[64 * 1024]);
        script.add("400");
        script.add("400");
        Path p = log("rejected");
        start("    dead_letter_max_bytes: 64KiB\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> requests.size() >= 2);
        assertThat(watermark(p)).isZero();
        assertThat(metrics.recordsDeadLettered.count()).isZero();
        assertThat(Files.size(dir.resolve("dead/letters.ndjson"))).isEqualTo(64 * 1024);
        Files.delete(dir.resolve("dead/letters.ndjson")); // the operator makes room
        await().atMost(Duration.ofSeconds(10)).until(() -> watermark(p) == Files.size(p));
    }

    @Test
    void retryAfterAcceptsSecondsAndHttpDates() {
        assertThat(HttpSink.retryAfter("7")).isEqualTo(Duration.ofSeconds(7));
        assertThat(HttpSink.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT")).isEqualTo(Duration.ZERO);
        assertThat(HttpSink.retryAfter("soon")).isNull();
        assertThat(HttpSink.retryAfter(null)).isNull();
    }
}
