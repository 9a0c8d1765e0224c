package dev.logpipe.query.internal.tail;

import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.query.IndexerProgress;
import dev.logpipe.query.QueryFixture;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.metrics.QueryMetrics;
import dev.logpipe.query.internal.plan.Cursor;
import dev.logpipe.query.internal.plan.QueryPlanner;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.record.LogRecord;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Tails} alone on a real Jetty server on 127.0.0.1, over the indexer's real store (near-real-time). */
class TailsTest {
    @TempDir
    Path data;

    /** A tail service mounted at /tail; {@code ?fail=1} makes its setup throw after the slot is taken. */
    final class Mounted implements AutoCloseable {
        final LuceneStore store;
        final AnswerMemory memory;
        final Tails tails;
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        final Server server;
        final ServerConnector connector;

        Mounted(String limits, long windowBytes) throws Exception {
            this(limits, windowBytes, Clock.systemUTC());
        }

        /** {@code tailClock}: the clock the tail reads (the store keeps the system's). */
        Mounted(String limits, long windowBytes, Clock tailClock) throws Exception {
            Clock clock = Clock.systemUTC();
            QueryConfig config = QueryFixture.config(data, limits);
            store = new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), clock);
            LiveShards source = new LiveShards(store);
            Env env = new Env(
                    config,
                    source,
                    new QueryPlanner(source, 31, 100_000_000L),
                    new FanOut(source, pool),
                    new Cursor.Codec(new byte[32]),
                    tailClock,
                    new QueryMetrics(new SimpleMeterRegistry()),
                    IndexerProgress.NONE);
            QueryConfig.Limits l = config.limits();
            memory = new AnswerMemory(l.answerMemoryBytes(), l.tenantAnswerMemoryBytes());
            tails = new Tails(env, memory, windowBytes);
            server = new Server(new QueuedThreadPool(16, 4));
            connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            server.setHandler(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    Fields f = Request.extractQueryParameters(request);
                    Map<String, List<String>> params = new java.util.HashMap<>();
                    f.forEach(field -> params.put(field.getName(), field.getValues()));
                    Call call = new Call(
                            "tail",
                            new Credential("acme", "test"),
                            config.tenant("acme"),
                            new Params(params),
                            "",
                            JsonNodeFactory.instance.objectNode());
                    Runnable started = "1".equals(f.getValue("fail"))
                            ? () -> {
                                throw new IllegalStateException("the audit line could not be written");
                            }
                            : () -> {};
                    try {
                        tails.handle(call, request, response, callback, started);
                    } catch (Refusal r) {
                        Response.writeError(
                                request, response, callback, r.answer().status());
                    }
                    return true;
                }
            });
            server.start();
        }

        String url(String query) {
            return "http://127.0.0.1:" + connector.getLocalPort() + "/tail" + query;
        }

        @Override
        public void close() throws Exception {
            tails.close();
            server.stop();
            pool.shutdownNow();
            store.close();
        }
    }

    /** A tail opened over HTTP whose first line (its banner) has arrived, and the lines of its stream. */
    record Opened(HttpResponse<InputStream> response, List<String> lines) implements AutoCloseable {
        static Opened await(Mounted m, String query) throws Exception {
            HttpResponse<InputStream> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(m.url(query))).build(),
                            HttpResponse.BodyHandlers.ofInputStream());
            List<String> lines = read(r.body());
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !lines.isEmpty());
            return new Opened(r, lines);
        }

        @Override
        public void close() throws IOException {
            response.body().close();
        }
    }

    /** The lines of a tail's stream, read by a daemon thread. */
    static List<String> read(InputStream body) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader b = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String line;
                while ((line = b.readLine()) != null) {
                    lines.add(line);
                }
            } catch (Exception e) {
                // the test ends the stream
            }
        });
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    static void burst(LuceneStore store, String prefix, int n, String pad) throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rs.add(record("acme", prefix + i, Instant.now(), "burst " + i + pad).build());
        }
        QueryFixture.write(store, rs);
        store.refresh();
    }

    /** The system clock, whose first reading takes {@code pause} (a server thread descheduled there). */
    static Clock slowFirstReading(Duration pause) {
        AtomicBoolean first = new AtomicBoolean(true);
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Instant instant() {
                if (first.getAndSet(false)) {
                    // sleep: slow seam: a clock whose first reading takes this long
                    LockSupport.parkNanos(pause.toNanos());
                }
                return Instant.now();
            }
        };
    }

    @Test
    void aRecordObservedAfterTheClientSawTheStreamBeginIsSent() throws Exception {
        try (Mounted m = new Mounted(
                "limits:\n  tail_poll: 50ms\n", Tails.WINDOW_BYTES, slowFirstReading(Duration.ofMillis(500)))) {
            Opened tail = Opened.await(m, "?q=burst");
            List<String> lines = tail.lines();
            burst(m.store, "first-", 1, "");
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> lines.contains("id: first-0"));
            tail.close();
        }
    }

    @Test
    void aTailWhoseSetupThrowsGivesItsSlotBack() throws Exception {
        try (Mounted m = new Mounted("limits:\n  max_tails: 1\n  tail_poll: 50ms\n", Tails.WINDOW_BYTES)) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> failed = http.send(
                    HttpRequest.newBuilder(URI.create(m.url("?fail=1"))).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(failed.statusCode()).isEqualTo(500);
            assertThat(m.tails.active()).isZero();
            HttpResponse<InputStream> next = http.send(
                    HttpRequest.newBuilder(URI.create(m.url(""))).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(next.statusCode()).as("the only slot is free again").isEqualTo(200);
            next.body().close();
        }
    }

    @Test
    void aBurstLargerThanTheWindowsBudgetArrivesWholeWhileTheWindowStaysWithinIt() throws Exception {
        long budget = 64 * 1024; // 4,096 records, of which 3,096 are kept after each poll
        try (Mounted m = new Mounted("limits:\n  tail_poll: 50ms\n", budget)) {
            Opened tail = Opened.await(m, "?q=burst");
            AtomicLong most = new AtomicLong();
            burst(m.store, "w-", 12_000, "");
            assertArrivesWhole(m, tail.lines(), 12_000, most);
            assertThat(most.get()).isPositive().isLessThanOrEqualTo(budget);
            tail.close();
        }
    }

    @Test
    void recordsSharingTheCursorsMillisecondPastTheWindowsKeepAreSent() throws Exception {
        long budget = 64 * 1024; // 4,096 records: 6,000 of one millisecond cannot all be remembered
        try (Mounted m = new Mounted("limits:\n  tail_poll: 50ms\n", budget)) {
            Opened tail = Opened.await(m, "?q=burst");
            AtomicLong most = new AtomicLong();
            Instant one = Instant.now().plusMillis(200);
            List<LogRecord> rs = new ArrayList<>();
            for (int i = 0; i < 6_000; i++) {
                rs.add(record("acme", "same-" + i, one, "burst " + i).build());
            }
            QueryFixture.write(m.store, rs);
            m.store.refresh();
            assertArrivesWhole(m, tail.lines(), 6_000, most);
            assertThat(most.get()).isPositive().isLessThanOrEqualTo(budget);
            tail.close();
        }
    }

    /** Waits until the tail sent {@code n} records, each once, and announced none skipped. */
    private static void assertArrivesWhole(Mounted m, List<String> lines, int n, AtomicLong mostWindowBytes) {
        try {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        mostWindowBytes.accumulateAndGet(m.tails.windowBytes(), Math::max);
                        return lines.stream()
                                                .filter(l -> l.startsWith("event: record"))
                                                .count()
                                        >= n
                                || lines.stream().anyMatch(l -> l.startsWith("event: skipped"));
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "records "
                            + lines.stream()
                                    .filter(l -> l.startsWith("event: record"))
                                    .count(),
                    e);
        }
        assertThat(lines.stream().filter(l -> l.startsWith("event: skipped") || l.startsWith("data: {\"skipped")))
                .isEmpty();
        assertThat(lines.stream().filter(l -> l.startsWith("id: ")).distinct().count())
                .isEqualTo(n);
        assertThat(lines.stream().filter(l -> l.startsWith("event: record")).count())
                .isEqualTo(n);
    }

    @Test
    void aPollsAnswerHoldsItsAnswerMemoryUntilTheClientTookIt() throws Exception {
        try (Mounted m = new Mounted("limits:\n  tail_poll: 50ms\n", Tails.WINDOW_BYTES);
                Socket client = new Socket()) {
            client.setReceiveBufferSize(4096);
            client.connect(new InetSocketAddress("127.0.0.1", m.connector.getLocalPort()));
            OutputStream o = client.getOutputStream();
            o.write("GET /tail?q=burst HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> m.tails.active() == 1);
            burst(m.store, "big-", 1000, " " + "x".repeat(20_000)); // 20 MB: more than the sockets hold
            // the client reads nothing: a poll's write blocks, and its records stay charged until it returns
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .during(Duration.ofMillis(500))
                    .until(() -> m.memory.used() > 0);
            InputStream in = client.getInputStream();
            AtomicBoolean drained = new AtomicBoolean();
            Thread reader = new Thread(() -> {
                byte[] b = new byte[65536];
                try {
                    while (in.read(b) >= 0 && !drained.get()) {
                        // read on, so the tail's writes complete
                    }
                } catch (Exception e) {
                    // the test closes the socket
                }
            });
            reader.setDaemon(true);
            reader.start();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> m.memory.used() == 0);
            drained.set(true);
        }
    }
}
