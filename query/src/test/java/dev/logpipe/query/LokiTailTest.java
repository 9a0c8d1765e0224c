package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.GLOBEX_KEY;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.record.Level;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loki's live tail over a real websocket (Java's client, as Grafana's backend dials it: {@code ws://.../loki/api/v1/tail
 * ?query=...} with the data source's basic auth), on the indexer's near-real-time store in one JVM.
 */
class LokiTailTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path data;

    interface Body {
        void run(LuceneStore store, String base, HttpClient http) throws Exception;
    }

    void withService(String limits, Body body) throws Exception {
        LiveService.run(data, limits, 32, (store, shards, port, http) -> body.run(store, "127.0.0.1:" + port, http));
    }

    static String basic(String key) {
        return "Basic " + Base64.getEncoder().encodeToString(("grafana:" + key).getBytes(StandardCharsets.UTF_8));
    }

    static URI tail(String host, String logql) {
        return URI.create(
                "ws://" + host + "/loki/api/v1/tail?query=" + URLEncoder.encode(logql, StandardCharsets.UTF_8));
    }

    /** The text messages a websocket received, each whole. */
    static final class Messages implements WebSocket.Listener {
        final List<String> received = new CopyOnWriteArrayList<>();
        private final StringBuilder part = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            part.append(data);
            if (last) {
                received.add(part.toString());
                part.setLength(0);
            }
            ws.request(1);
            return null;
        }

        String all() {
            return String.join("\n", received);
        }
    }

    static WebSocket open(HttpClient http, URI uri, String authorization, Messages m) throws Exception {
        WebSocket.Builder b = http.newWebSocketBuilder();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b.buildAsync(uri, m).get(10, TimeUnit.SECONDS);
    }

    static int refusedWith(HttpClient http, URI uri, String authorization, String orgId) {
        WebSocket.Builder b = http.newWebSocketBuilder();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (orgId != null) {
            b.header("X-Scope-OrgID", orgId);
        }
        Throwable t = catchThrowable(() -> b.buildAsync(uri, new Messages()).get(10, TimeUnit.SECONDS));
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof WebSocketHandshakeException h) {
                return h.getResponse().statusCode();
            }
        }
        throw new AssertionError("the handshake was not refused", t);
    }

    @Test
    void grafanasLiveTailGetsFreshMatchingLinesAsLokiStreamsAndNeverAnotherTenants() throws Exception {
        withService("limits:\n  tail_poll: 200ms\n", (store, host, http) -> {
            Clock clock = Clock.systemUTC();
            QueryFixture.write(
                    store,
                    List.of(record("acme", "old-1", clock.instant(), "payment old")
                            .service("api")
                            .build()));
            store.refresh();
            Messages m = new Messages();
            WebSocket ws = open(http, tail(host, "{service=\"api\"} |= \"payment\" | logfmt"), basic(ACME_KEY), m);
            // the tail's start is fixed before the upgrade is answered: what is written from here on is new to it
            QueryFixture.write(
                    store,
                    List.of(
                            record("globex", "g-fresh", clock.instant(), "payment globex")
                                    .service("api")
                                    .build(),
                            record("acme", "a-fresh", clock.instant(), "payment fresh amount=12")
                                    .service("api")
                                    .level(Level.WARN)
                                    .build(),
                            record("acme", "a-other", clock.instant(), "payment elsewhere")
                                    .service("billing")
                                    .build(),
                            record("acme", "a-nomatch", clock.instant(), "unrelated")
                                    .service("api")
                                    .build()));
            store.refresh();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> m.all().contains("payment fresh"));
            JsonNode first = JSON.readTree(m.received.stream()
                    .filter(s -> s.contains("payment fresh"))
                    .findFirst()
                    .orElseThrow());
            JsonNode stream = first.path("streams").get(0);
            assertThat(stream.path("stream").path("service").asText()).isEqualTo("api");
            assertThat(stream.path("stream").path("level").asText()).isEqualTo("WARN");
            assertThat(stream.path("stream").path("amount").asText()).isEqualTo("12"); // | logfmt ran
            assertThat(stream.path("values").get(0).get(0).asText()).matches("\\d{19}");
            assertThat(stream.path("values").get(0).get(1).asText()).isEqualTo("payment fresh amount=12");
            assertThat(first.has("dropped_entries")).isTrue();
            assertThat(m.all())
                    .doesNotContain("globex")
                    .doesNotContain("payment old")
                    .doesNotContain("elsewhere")
                    .doesNotContain("unrelated");
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            List<Path> audit = new ArrayList<>();
            try (var files = Files.walk(data)) {
                files.filter(p -> p.getFileName().toString().startsWith("query-audit"))
                        .forEach(audit::add);
            }
            assertThat(audit).isNotEmpty();
            assertThat(Files.readString(audit.get(0)))
                    .contains("\"endpoint\":\"loki_tail\"")
                    .contains("\"outcome\":\"tail_started\"");
        });
    }

    @Test
    void aTailIsRefusedWithoutTheKeyForAnotherTenantForAMetricQueryAndWithoutAnUpgrade() throws Exception {
        withService("", (store, host, http) -> {
            URI uri = tail(host, "{service=\"api\"}");

            assertThat(refusedWith(http, uri, null, null)).isEqualTo(401);
            assertThat(refusedWith(http, uri, basic("wrong-key-0123456789"), null))
                    .isEqualTo(401);
            assertThat(refusedWith(http, uri, basic(ACME_KEY), "globex")).isIn(401, 403);
            assertThat(refusedWith(http, tail(host, "count_over_time({service=\"api\"}[1m])"), basic(ACME_KEY), null))
                    .isEqualTo(400);
            assertThat(refusedWith(http, tail(host, "{service=\"api\""), basic(ACME_KEY), null))
                    .isEqualTo(400);
            HttpResponse<String> plain = http.send(
                    HttpRequest.newBuilder(URI.create("http://" + host + "/loki/api/v1/tail?query="
                                    + URLEncoder.encode("{service=\"api\"}", StandardCharsets.UTF_8)))
                            .header("Authorization", basic(ACME_KEY))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(plain.statusCode()).isEqualTo(400);
            assertThat(plain.body()).contains("websocket");
        });
    }

    @Test
    void theTailCapsHoldForWebsocketsAndAClosedTailGivesItsSlotBack() throws Exception {
        withService("limits:\n  max_tails: 1\n  tail_poll: 200ms\n", (store, host, http) -> {
            URI uri = tail(host, "{service=\"api\"}");
            WebSocket first = open(http, uri, basic(ACME_KEY), new Messages());

            assertThat(refusedWith(http, uri, basic(GLOBEX_KEY), null)).isEqualTo(429);
            HttpResponse<String> sse = http.send(
                    HttpRequest.newBuilder(URI.create("http://" + host + "/api/v1/tail"))
                            .header("Authorization", "Bearer " + ACME_KEY)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(sse.statusCode()).isEqualTo(429); // one cap for both protocols

            first.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                WebSocket again = open(http, uri, basic(GLOBEX_KEY), new Messages());
                again.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            });
        });
    }

    @Test
    void aClientThatStopsReadingLosesItsTailAfterTheSendTimeoutAndFreesItsSlot() throws Exception {
        withService("limits:\n  max_tails: 1\n  tail_poll: 100ms\n  query_timeout: 2s\n", (store, host, http) -> {
            URI uri = tail(host, "{service=\"api\"}");
            WebSocket stalled = http.newWebSocketBuilder()
                    .header("Authorization", basic(ACME_KEY))
                    .buildAsync(uri, new WebSocket.Listener() {
                        @Override
                        public void onOpen(WebSocket ws) {
                            // never requests a message: the client reads nothing, its buffers fill
                        }
                    })
                    .get(10, TimeUnit.SECONDS);
            assertThat(refusedWith(http, uri, basic(ACME_KEY), null)).isEqualTo(429);

            TailTest.burst(store, "flood-", 40_000, " " + "x".repeat(2000));

            // the blocked send times out (limits.query_timeout), the tail ends and its slot comes back
            Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
                WebSocket again = open(http, uri, basic(GLOBEX_KEY), new Messages());
                again.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            });
            stalled.abort();
        });
    }

    @Test
    void aClientThatDropsRightAfterTheUpgradeGivesItsSlotBack() throws Exception {
        withService("limits:\n  max_tails: 1\n  tail_poll: 100ms\n", (store, host, http) -> {
            String[] hp = host.split(":");
            try (java.net.Socket raw = new java.net.Socket(hp[0], Integer.parseInt(hp[1]))) {
                String query = URLEncoder.encode("{service=\"api\"}", StandardCharsets.UTF_8);
                raw.getOutputStream()
                        .write(("GET /loki/api/v1/tail?query=" + query + " HTTP/1.1\r\nHost: " + host + "\r\n"
                                        + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                                        + "Authorization: " + basic(ACME_KEY) + "\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                byte[] head = new byte[12];
                assertThat(raw.getInputStream().readNBytes(head, 0, 12)).isEqualTo(12);
                assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 101");
            } // dropped without a close frame
            URI uri = tail(host, "{service=\"api\"}");
            Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
                WebSocket again = open(http, uri, basic(GLOBEX_KEY), new Messages());
                again.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            });
        });
    }
}
