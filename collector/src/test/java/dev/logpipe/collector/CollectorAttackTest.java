package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static dev.logpipe.collector.CollectorFixture.BURST_KEY;
import static dev.logpipe.collector.CollectorFixture.GLOBEX_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.Integration;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The attacks an outsider with a valid key made on the collector (issue collector-hardening), each against the real
 * collector, the embedded broker and real sockets: slow bodies, parallel bursts against a rate limit, ambiguous
 * credentials, gzip with trailing garbage, UTF-16 bodies.
 */
@Integration
class CollectorAttackTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Health checks and the well-behaved tenant come from another loopback address than the attacker. */
    private static final String OTHER_ADDRESS = "127.0.0.2";

    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    private static CollectorFixture collector;

    @BeforeAll
    static void start() throws Exception {
        collector = CollectorFixture.start(KAFKA.bootstrapServers(), "attack", "");
    }

    @AfterAll
    static void stop() throws Exception {
        collector.close();
    }

    @Test
    void aThousandSlowBodiesLeaveHealthChecksAndOtherTenantsAnsweringWithinASecond() throws Exception {
        int port = collector.port();
        // One POST before the attack, so that the first measured one is not the one that loads the classes.
        assertThat(RawHttp.exchange(
                                OTHER_ADDRESS,
                                port,
                                "POST",
                                "/api/v1/logs",
                                "Bearer " + GLOBEX_KEY,
                                "{\"message\":\"a1 warm\"}\n".getBytes(StandardCharsets.UTF_8),
                                5_000)
                        .status())
                .isEqualTo(200);
        AtomicBoolean attacking = new AtomicBoolean(true);
        AtomicInteger opened = new AtomicInteger();
        Thread attacker = new Thread(() -> slowBodies(port, 1000, attacking, opened), "slow-body-attacker");
        attacker.start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> opened.get() >= 1000);
            List<Long> health = new ArrayList<>();
            List<Long> posts = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                RawHttp.Reply h = RawHttp.exchange(OTHER_ADDRESS, port, "GET", "/healthz", null, null, 5_000);
                assertThat(h.status()).isEqualTo(200);
                health.add(h.millis());
                RawHttp.Reply p = RawHttp.exchange(
                        OTHER_ADDRESS,
                        port,
                        "POST",
                        "/api/v1/logs",
                        "Bearer " + GLOBEX_KEY,
                        ("{\"message\":\"a1 normal " + i + "\"}\n").getBytes(StandardCharsets.UTF_8),
                        5_000);
                assertThat(p.status()).as(p.body()).isEqualTo(200);
                posts.add(p.millis());
                Thread.sleep(250); // sleep: pacing: the probes spread over the attack
            }
            assertThat(health)
                    .as("health check latencies (ms) under attack")
                    .allSatisfy(ms -> assertThat(ms).isLessThan(1_000));
            assertThat(posts)
                    .as("another tenant's POST latencies (ms) under attack")
                    .allSatisfy(ms -> assertThat(ms).isLessThan(1_000));
        } finally {
            attacking.set(false);
            attacker.join();
        }
        String metrics = collector.get("/metrics").body();
        assertThat(metrics).contains("logpipe_collector_requests_refused_total{cap=\"tenant\"}");
        assertThat(metrics).contains("logpipe_collector_requests_total{status=\"408\"}");
    }

    /**
     * Keeps {@code count} connections open that announce 100,000 body bytes and send one a second; a connection the
     * collector answers or closes is opened again, until {@code attacking} is false.
     */
    private static void slowBodies(int port, int count, AtomicBoolean attacking, AtomicInteger opened) {
        byte[] head = ("POST /api/v1/logs HTTP/1.1\r\nHost: collector\r\nAuthorization: Bearer " + ACME_KEY
                        + "\r\nContent-Length: 100000\r\n\r\n{")
                .getBytes(StandardCharsets.US_ASCII);
        List<Socket> sockets = new ArrayList<>();
        try {
            while (attacking.get()) {
                while (sockets.size() < count && attacking.get()) {
                    try {
                        Socket s = new Socket();
                        s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
                        s.getOutputStream().write(head);
                        sockets.add(s);
                        opened.incrementAndGet();
                    } catch (IOException e) {
                        break; // refused or reset: try again on the next round
                    }
                }
                long roundEnd = System.nanoTime() + 1_000_000_000L;
                sockets.removeIf(s -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        out.write(' ');
                        out.flush();
                        return s.getInputStream().available() > 0 && close(s); // answered: open a new one
                    } catch (IOException e) {
                        return close(s);
                    }
                });
                long left = roundEnd - System.nanoTime();
                if (left > 0) {
                    // sleep: pacing: the rest of this round of the slow-client attack
                    Thread.sleep(left / 1_000_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            sockets.forEach(CollectorAttackTest::close);
        }
    }

    private static boolean close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing a dead socket
        }
        return true;
    }

    @Test
    void parallelBurstsCannotTakeMoreThanTheBucketAndOneRequest() throws Exception {
        int requests = 20;
        int perRequest = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(requests);
        List<Future<RawHttp.Reply>> replies = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int r = 0; r < requests; r++) {
            StringBuilder body = new StringBuilder();
            for (int i = 0; i < perRequest; i++) {
                body.append("{\"message\":\"a2 burst ")
                        .append(r)
                        .append('-')
                        .append(i)
                        .append("\"}\n");
            }
            byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
            replies.add(pool.submit(() -> RawHttp.exchange(
                    null, collector.port(), "POST", "/api/v1/logs", "Bearer " + BURST_KEY, bytes, 30_000)));
        }
        int accepted = 0;
        int ok = 0;
        for (Future<RawHttp.Reply> f : replies) {
            RawHttp.Reply reply = f.get();
            assertThat(reply.status()).as(reply.body()).isIn(200, 429);
            if (reply.status() == 200) {
                ok++;
            } else {
                assertThat(Long.parseLong(reply.retryAfter()))
                        .as("Retry-After is capped at limits.max_retry_after")
                        .isBetween(1L, 30L);
            }
            JsonNode answer = JSON.readTree(reply.body());
            accepted += answer.path("accepted").asInt();
            if (reply.status() == 429 && answer.has("resume_from_line")) {
                assertThat(answer.get("resume_from_line").asInt())
                        .isEqualTo(answer.get("accepted").asInt() + 1);
            }
        }
        pool.shutdown();
        double seconds = (System.nanoTime() - t0) / 1e9;
        // The bucket holds 10, refills 10/s; one request may finish in debt.
        assertThat(accepted)
                .as("records taken by 20 parallel requests of 5,000 at 10/s")
                .isLessThanOrEqualTo(perRequest + 10 + (int) Math.ceil(seconds * 10));
        assertThat(ok).isLessThanOrEqualTo(1);

        List<String> inTopic = TopicContents.recordLines(
                        TopicContents.readAll(KAFKA.bootstrapServers(), "attack.records", Duration.ofSeconds(20)))
                .stream()
                .filter(l -> l.contains("a2 burst "))
                .toList();
        assertThat(inTopic)
                .as("exactly what was reported as accepted reached the topic")
                .hasSize(accepted);

        RawHttp.Reply next = RawHttp.exchange(
                null,
                collector.port(),
                "POST",
                "/api/v1/logs",
                "Bearer " + BURST_KEY,
                "{\"message\":\"a2 after\"}\n".getBytes(StandardCharsets.UTF_8),
                5_000);
        assertThat(next.status()).isEqualTo(429);
        assertThat(next.retryAfter())
                .as("the bucket needs minutes; the answer is capped")
                .isEqualTo("30");
    }

    @Test
    void twoAuthorizationHeadersAreRefusedAsAmbiguous() throws Exception {
        try (Socket s = new Socket("127.0.0.1", collector.port())) {
            s.setSoTimeout(5_000);
            byte[] body = "{\"message\":\"a3 two keys\"}\n".getBytes(StandardCharsets.UTF_8);
            s.getOutputStream()
                    .write(("POST /api/v1/logs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ACME_KEY
                                    + "\r\nAuthorization: Bearer " + GLOBEX_KEY + "\r\nContent-Length: " + body.length
                                    + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().write(body);
            String status = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertThat(status).isEqualTo("HTTP/1.1 401");
        }
    }

    @Test
    void gzipWithTrailingGarbageIs400AndAUtf16BodyIs415() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(CollectorFixture.gzip("{\"message\":\"a4 gz\"}\n"));
        body.write("trailing garbage".getBytes(StandardCharsets.US_ASCII));
        var r = collector.post(ACME_KEY, body.toByteArray(), "gzip");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).contains("after the end of the gzip stream");

        var utf16 = collector.post(ACME_KEY, "{\"message\":\"a4 utf16\"}\n".getBytes(StandardCharsets.UTF_16), null);
        assertThat(utf16.statusCode()).as(utf16.body()).isEqualTo(415);
        assertThat(collector.get("/healthz").statusCode()).isEqualTo(200);
    }
}
