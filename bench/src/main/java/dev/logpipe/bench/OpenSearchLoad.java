package dev.logpipe.bench;

import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Loads {@link QueryRecords} into OpenSearch over {@code _bulk} with {@code java.net.http}: one daily index per day
 * ({@value #PREFIX}yyyy-MM-dd, 1 primary shard, no replica, from an index template with an explicit mapping), each
 * document the record's own NDJSON line with {@code _id} = {@code record_id}. {@code clients} requests are in flight
 * at once; a bounded queue of bodies sits between the generator and them.
 */
final class OpenSearchLoad {
    static final String PREFIX = "logs-bench-";
    static final String PATTERN = PREFIX + "*";

    /** The record's keyword fields as keywords, the message as text (standard analyzer), times as dates. */
    private static final String TEMPLATE = """
            {"index_patterns": ["%s"],
             "template": {
              "settings": {"number_of_shards": 1, "number_of_replicas": 0},
              "mappings": {"dynamic": "strict", "properties": {
               "schema_version": {"type": "integer"},
               "record_id": {"type": "keyword"}, "tenant_id": {"type": "keyword"},
               "event_time": {"type": "date"}, "observed_time": {"type": "date"},
               "trace_id": {"type": "keyword"}, "span_id": {"type": "keyword"},
               "service": {"type": "keyword"}, "instance_id": {"type": "keyword"}, "region": {"type": "keyword"},
               "level": {"type": "keyword"}, "message": {"type": "text"},
               "fields": {"properties": {"took_ms": {"type": "long"},
                                         "http": {"properties": {"status": {"type": "long"}}}}}}}}}
            """.formatted(PATTERN);

    private static final byte[] END = {'}', '}', '\n'};
    private static final byte[] NEWLINE = {'\n'};
    private static final byte[] POISON = new byte[0];

    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;

    OpenSearchLoad(String base) {
        this.base = base;
    }

    /** Writes the template, loads {@code n} records; returns the seconds from the first request to the last answer. */
    double load(long n, int docsPerBulk, int clients) throws Exception {
        send("PUT", "/_index_template/logs-bench", TEMPLATE.getBytes(StandardCharsets.UTF_8));
        RecordCodec codec = new RecordCodec();
        QueryRecords records = new QueryRecords(n);
        BlockingQueue<byte[]> bodies = new ArrayBlockingQueue<>(2 * clients);
        ExecutorService senders = Executors.newFixedThreadPool(clients);
        List<Future<Void>> sent = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            sent.add(senders.submit(() -> {
                for (byte[] body = bodies.take(); body != POISON; body = bodies.take()) {
                    String answer = send("POST", "/_bulk?filter_path=errors,items.*.error", body);
                    if (!answer.contains("\"errors\":false")) {
                        throw new IllegalStateException(
                                "bulk had errors: " + answer.substring(0, Math.min(2000, answer.length())));
                    }
                }
                return null;
            }));
        }
        long t0 = System.nanoTime();
        try {
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
                if (++inBody == docsPerBulk) {
                    put(bodies, body.toByteArray(), sent);
                    body.reset();
                    inBody = 0;
                }
            }
            if (inBody > 0) {
                put(bodies, body.toByteArray(), sent);
            }
        } finally {
            for (int c = 0; c < clients; c++) {
                bodies.put(POISON);
            }
            senders.shutdown();
        }
        for (Future<Void> f : sent) {
            f.get();
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Blocks while the queue is full, failing fast if a sender already failed. */
    private static void put(BlockingQueue<byte[]> bodies, byte[] body, List<Future<Void>> sent) throws Exception {
        while (!bodies.offer(body, 1, java.util.concurrent.TimeUnit.SECONDS)) {
            for (Future<Void> f : sent) {
                if (f.isDone()) {
                    f.get(); // throws the sender's failure
                    throw new IllegalStateException("a bulk sender stopped early");
                }
            }
        }
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
