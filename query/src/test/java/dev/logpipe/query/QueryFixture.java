package dev.logpipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.config.QueryConfigLoader;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes shards through the real index write path, starts a query process on them, and asks it over HTTP. */
public final class QueryFixture {
    public static final String ACME_KEY = "acme-key-0123456789";
    public static final String GLOBEX_KEY = "globex-key-0123456789";
    static final ObjectMapper JSON = new ObjectMapper();
    static final RecordCodec CODEC = new RecordCodec();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private QueryFixture() {}

    public static String yaml(Path data, String extra) {
        return """
                listen: 127.0.0.1:0
                data_dir: %s
                reopen_interval: 50ms
                tenants:
                  - id: acme
                    api_key_sha256: [%s]
                  - id: globex
                    api_key_sha256: [%s]
                """.formatted(data, ConfiguredKeys.sha256(ACME_KEY), ConfiguredKeys.sha256(GLOBEX_KEY)) + extra;
    }

    public static QueryConfig config(Path data, String extra) throws Exception {
        return new QueryConfigLoader().parse(yaml(data, extra), "test");
    }

    public static QueryProcess start(Path data, String extra, InstantSource clock) throws Exception {
        return QueryProcess.start(config(data, extra), clock);
    }

    public static LogRecord.Builder record(String tenant, String id, Instant t, String message) {
        return LogRecord.builder(message)
                .recordId(id)
                .tenantId(tenant)
                .eventTime(t)
                .observedTime(t)
                .service("api")
                .instanceId("host-1")
                .level(Level.INFO);
    }

    /** Writes the records (grouped by tenant and UTC day, as the indexer routes them), commits, closes. */
    public static void write(Path data, List<LogRecord> records) throws Exception {
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.system())) {
            write(store, records);
            store.commit(Map.of("t-0", (long) records.size()));
        }
    }

    public static void write(ShardStore store, List<LogRecord> records) throws Exception {
        Map<ShardId, List<IndexRecord>> byShard = new LinkedHashMap<>();
        for (LogRecord r : records) {
            byte[] line = CODEC.encode(r);
            LogRecord decoded = CODEC.decode(line);
            ShardId id = ShardId.records(r.tenantId(), LocalDate.ofInstant(r.eventTime(), ZoneOffset.UTC));
            byShard.computeIfAbsent(id, k -> new ArrayList<>())
                    .add(new IndexRecord(decoded, r.eventTime(), r.observedTime(), line, 0, line.length));
        }
        for (Map.Entry<ShardId, List<IndexRecord>> e : byShard.entrySet()) {
            store.write(e.getKey(), e.getValue());
        }
    }

    public static HttpResponse<String> get(QueryProcess q, String pathAndQuery, String key, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + q.address().getPort() + pathAndQuery))
                .timeout(Duration.ofSeconds(30));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A request of any method with a JSON body (null: none). */
    public static HttpResponse<String> send(QueryProcess q, String method, String path, String key, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + q.address().getPort() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    public static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    public static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
