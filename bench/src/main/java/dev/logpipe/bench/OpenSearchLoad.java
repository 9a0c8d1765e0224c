package dev.logpipe.bench;

import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads {@link QueryRecords} into OpenSearch over {@code _bulk} with {@code java.net.http}: one daily index per day
 * ({@value #PREFIX}yyyy-MM-dd, 1 primary shard, no replica, from an index template with an explicit mapping), each
 * document the record's own NDJSON line with {@code _id} = {@code record_id}; optionally sorted as logpipe's shards
 * are. The bodies are written to files first, then sent {@code clients} at a time.
 */
final class OpenSearchLoad {
    static final String PREFIX = "logs-bench-";
    static final String PATTERN = PREFIX + "*";

    /** The record's keyword fields as keywords, the message as text (standard analyzer), times as dates. */
    private static final String TEMPLATE = """
            {"index_patterns": ["%s"],
             "template": {
              "settings": {"number_of_shards": 1, "number_of_replicas": 0%s},
              "mappings": {"dynamic": "strict", "properties": {
               "schema_version": {"type": "integer"},
               "record_id": {"type": "keyword"}, "tenant_id": {"type": "keyword"},
               "event_time": {"type": "date"}, "observed_time": {"type": "date"},
               "trace_id": {"type": "keyword"}, "span_id": {"type": "keyword"},
               "service": {"type": "keyword"}, "instance_id": {"type": "keyword"}, "region": {"type": "keyword"},
               "level": {"type": "keyword"}, "message": {"type": "text"},
               "fields": {"properties": {"took_ms": {"type": "long"},
                                         "http": {"properties": {"status": {"type": "long"}}}}}}}}}
            """;
    /** logpipe's own order (its day shards are sorted newest first on the merge key). */
    private static final String INDEX_SORT =
            ", \"sort.field\": [\"event_time\", \"record_id\"], \"sort.order\": [\"desc\", \"desc\"]";

    private static final byte[] END = {'}', '}', '\n'};
    private static final byte[] NEWLINE = {'\n'};

    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;

    OpenSearchLoad(String base) {
        this.base = base;
    }

    /**
     * Writes {@code n} records as {@code _bulk} bodies of {@code docsPerBulk} documents into files under {@code dir}
     * (so that sending them costs the client almost nothing), and returns them in order.
     */
    static List<Path> prepare(long n, int docsPerBulk, Path dir) throws IOException {
        return prepare(new QueryRecords(n), docsPerBulk, dir);
    }

    /** As {@link #prepare(long, int, Path)}, for the given records. */
    static List<Path> prepare(QueryRecords records, int docsPerBulk, Path dir) throws IOException {
        Files.createDirectories(dir);
        RecordCodec codec = new RecordCodec();
        List<Path> files = new ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream(docsPerBulk * 480);
        int inBody = 0;
        while (records.hasNext()) {
            LogRecord r = records.next();
            LocalDate day = LocalDate.ofInstant(r.eventTime(), ZoneOffset.UTC);
            body.writeBytes(("{\"index\":{\"_index\":\"" + PREFIX + day + "\",\"_id\":\"" + r.recordId() + "\"")
                    .getBytes(StandardCharsets.US_ASCII));
            body.writeBytes(END);
            body.writeBytes(codec.encode(r));
            body.writeBytes(NEWLINE);
            if (++inBody == docsPerBulk || !records.hasNext()) {
                Path f = dir.resolve(String.format(Locale.ROOT, "bulk-%06d.ndjson", files.size()));
                Files.write(f, body.toByteArray());
                files.add(f);
                body.reset();
                inBody = 0;
            }
        }
        return files;
    }

    /**
     * Writes the index template, then sends the bodies, {@code clients} at a time; returns the seconds from the first
     * request to the last answer. Any item that failed fails the load.
     */
    double load(List<Path> bodies, int clients, boolean indexSort) throws Exception {
        send(
                "PUT",
                "/_index_template/logs-bench",
                TEMPLATE.formatted(PATTERN, indexSort ? INDEX_SORT : "").getBytes(StandardCharsets.UTF_8));
        long t0 = System.nanoTime();
        ParallelBodies.send(bodies, clients, body -> {
            String answer = send("POST", "/_bulk?filter_path=errors,items.*.error", Files.readAllBytes(body));
            if (!answer.contains("\"errors\":false")) {
                throw new IllegalStateException(
                        "bulk had errors: " + answer.substring(0, Math.min(2000, answer.length())));
            }
        });
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Refresh, force-merge (when {@code maxSegments > 0}), flush, then waits until no merge runs; seconds taken. */
    double settle(int maxSegments) throws Exception {
        long t0 = System.nanoTime();
        send("POST", "/" + PATTERN + "/_refresh", new byte[0]);
        if (maxSegments > 0) {
            send("POST", "/" + PATTERN + "/_forcemerge?max_num_segments=" + maxSegments, new byte[0]);
        }
        // after the merge, so that the commit (and the disk) holds only the merged segments
        send("POST", "/" + PATTERN + "/_flush", new byte[0]);
        while (!get("/" + PATTERN + "/_stats/merge?filter_path=_all.total.merges.current")
                .contains("\"current\":0")) {
            Thread.sleep(200);
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    String send(String method, String path, byte[] body) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base + path))
                        .header("Content-Type", path.startsWith("/_bulk") ? "application/x-ndjson" : "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + path + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    String get(String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }
}
