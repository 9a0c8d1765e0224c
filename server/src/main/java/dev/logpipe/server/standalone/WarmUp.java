package dev.logpipe.server.standalone;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.query.IndexerProgress;
import dev.logpipe.query.QueryService;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Runs the standalone's hot paths on throwaway data before it reports ready, so the JIT compiles them before the
 * first real load instead of during it: records are decoded, encoded and decoded again (the collector's and the
 * indexer's codec), written with the real schema into a {@link LuceneStore} in a temp directory, refreshed, and
 * searched through a real {@link QueryService} over HTTP on 127.0.0.1. Touches nothing of the data directory, the
 * broker or the tenants; the temp directory is deleted afterwards. Bounded by {@code budget}; runs on the caller's
 * thread.
 */
final class WarmUp {
    static final String TENANT = "warmup";
    private static final int BATCH = 500;
    private static final int WARM_UP_RAM_BUFFER_MB = 8;

    /** What a warm-up did. */
    record Result(long millis, long records, int searches) {}

    private WarmUp() {}

    /**
     * @param settings the indexer's store settings (compression, limits), so the same indexing chain runs; the RAM buffer
     *                 is the warm-up's own 8 MB
     * @param query    the query service's configuration (limits); its data directory, cursor secret and audit log are
     *                 replaced by files in the temp directory
     */
    static Result run(Duration budget, StoreSettings settings, QueryConfig query, QueryConfig.Tenant defaults)
            throws IOException, InterruptedException {
        long began = System.nanoTime();
        long deadline = began + budget.toNanos();
        Path dir = Files.createTempDirectory("logpipe-warmup");
        long records = 0;
        int searches = 0;
        // The indexer's settings but its own small RAM buffer: the same indexing chain runs, while the live indexer
        // (perhaps replaying a backlog) holds its buffer in the same heap.
        StoreSettings small = new StoreSettings(
                WARM_UP_RAM_BUFFER_MB, settings.maxOpenShards(), settings.trackedIdsPerShard(), settings.compression());
        // Closed last (after the store), so a failure to delete the directory is suppressed by the warm-up's own.
        try (Closeable cleanup = () -> deleteTree(dir);
                LuceneStore store = new LuceneStore(new ShardLayout(dir.resolve("index")), small, Clock.systemUTC())) {
            QueryConfig qc = new QueryConfig(
                    new InetSocketAddress("127.0.0.1", 0),
                    dir.resolve("index"),
                    query.reopenInterval(),
                    List.of(new QueryConfig.Tenant(
                            TENANT, List.of(), defaults.maxWindow(), defaults.maxConcurrentQueries())),
                    query.limits(),
                    dir.resolve("cursor.key"),
                    QueryConfig.Audit.defaults(dir.resolve("audit.jsonl")),
                    AuthFailures.Policy.DEFAULT,
                    Optional.empty(), // the Lucene shards of the directory
                    QueryConfig.Alerting.NONE,
                    Optional.empty(), // no archive tier
                    List.of(), // no admin keys
                    List.of());
            String token = oneTimeToken(); // the private port is on 127.0.0.1, open to local users
            String bearer = "Bearer " + token;
            Server server = new Server();
            try (QueryService service = QueryService.create(
                    qc,
                    new LiveShards(store),
                    k -> token.equals(k) ? Optional.of(new Credential(TENANT, "warmup")) : Optional.empty(),
                    () -> Optional.of(new IndexerProgress.Snapshot(0.0, java.util.Map.of())),
                    Clock.systemUTC(),
                    new SimpleMeterRegistry())) {
                ServerConnector connector = new ServerConnector(server, 1, 1);
                connector.setHost("127.0.0.1");
                connector.setPort(0);
                server.addConnector(connector);
                server.setHandler(service.handler());
                server.start();
                String base = "http://127.0.0.1:" + connector.getLocalPort() + "/api/v1/";
                HttpClient http = HttpClient.newHttpClient();
                RecordCodec codec = new RecordCodec();
                int batch = 0;
                while (System.nanoTime() < deadline) {
                    records += writeBatch(store, codec, batch);
                    if (batch % 5 == 4) { // a refresh every 2,500 records, a search after it
                        store.refresh();
                        searches += search(http, base, bearer, batch, deadline);
                    }
                    batch++;
                }
            } catch (IOException | InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("warm-up failed: " + e.getMessage(), e);
            } finally {
                try {
                    server.stop();
                } catch (Exception e) {
                    // a stopped throwaway server; nothing of the user's depends on it
                }
            }
        }
        return new Result((System.nanoTime() - began) / 1_000_000, records, searches);
    }

    /** A credential nobody else can guess: 24 random bytes, for this warm-up only. */
    private static String oneTimeToken() {
        byte[] b = new byte[24];
        new SecureRandom().nextBytes(b);
        return "warmup-" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** One batch as the collector publishes it (decode, encode) and the indexer writes it (decode, write). */
    private static int writeBatch(LuceneStore store, RecordCodec codec, int batch) throws Exception {
        Instant now = Instant.now();
        List<IndexRecord> out = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            byte[] line = ("{\"message\":\"warm-up batch w" + batch + " record " + i + " user=u" + (i % 97)
                            + " took_ms=" + (i % 1000) + "\",\"level\":\"" + (i % 10 == 0 ? "WARN" : "INFO")
                            + "\",\"service\":\"warmup-" + (i % 4) + "\",\"region\":\"eu-" + (i % 3)
                            + "\",\"fields\":{\"status\":" + (200 + i % 5) + ",\"path\":\"/p/" + (i % 13) + "\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            LogRecord accepted = codec.decodeToBuilder(line, 0, line.length)
                    .tenantId(TENANT)
                    .recordId("w" + batch + "-" + i)
                    .observedTime(now)
                    .eventTime(now)
                    .build();
            byte[] published = codec.encode(accepted);
            LogRecord read = codec.decode(published);
            out.add(new IndexRecord(read, now, now, published, 0, published.length));
        }
        store.write(ShardId.records(TENANT, now.atZone(ZoneOffset.UTC).toLocalDate()), out);
        return BATCH;
    }

    /** Searches until the deadline; each search may overrun it by at most a second. */
    private static int search(HttpClient http, String base, String bearer, int batch, long deadline) throws Exception {
        int n = 0;
        for (String q : List.of(
                "search?limit=1&from=now-10m&q=w" + batch,
                "search?limit=50&from=now-10m&q=level:WARN",
                "histogram?from=now-10m")) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(base + q))
                            .header("Authorization", bearer)
                            .timeout(Duration.ofNanos(left).plusSeconds(1))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("warm-up search " + q + " answered " + r.statusCode() + ": " + r.body());
            }
            n++;
        }
        return n;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
