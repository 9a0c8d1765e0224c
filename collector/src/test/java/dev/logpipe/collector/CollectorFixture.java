package dev.logpipe.collector;

import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.CollectorConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;

/** A collector running in this JVM on a free port against a given broker, and an HTTP client for it. */
final class CollectorFixture implements AutoCloseable {
    static final String ACME_KEY = "acme-key-0123456789";
    static final String GLOBEX_KEY = "globex-key-0123456789";
    static final String SLOW_KEY = "slow-key-0123456789";
    static final String BURST_KEY = "burst-key-0123456789";

    private final Collector collector;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private CollectorFixture(Collector collector) {
        this.collector = collector;
    }

    /**
     * Tenants acme and globex (no limits), slow (20 records/s, burst 1 s) and burst (10 records/s, burst 1 s);
     * {@code extraYaml} is appended.
     */
    static CollectorFixture start(String bootstrap, String topicPrefix, String extraYaml) throws Exception {
        String yaml = """
                listen: 127.0.0.1:0
                limits:
                  max_body_bytes: 1MiB
                  max_decoded_bytes: 4MiB
                  max_record_bytes: 256KiB
                  idle_timeout: 1s
                  max_retry_after: 30s
                tenants:
                  - id: acme
                    api_key_sha256: [%s]
                  - id: globex
                    api_key_sha256: [%s]
                  - id: slow
                    api_key_sha256: [%s]
                    records_per_second: 20
                    burst: 1s
                  - id: burst
                    api_key_sha256: [%s]
                    records_per_second: 10
                    burst: 1s
                kafka:
                  bootstrap_servers: %s
                  topic: %s.records
                  dead_letter_topic: %s.dead-letter
                  partitions: 3
                  replication_factor: 1
                  min_insync_replicas: 1
                  delivery_timeout: 5s
                redaction:
                  rules:
                    - name: internal_ticket
                      pattern: 'TKT-[0-9]{6}'
                """.formatted(
                                ApiKeys.sha256(ACME_KEY),
                                ApiKeys.sha256(GLOBEX_KEY),
                                ApiKeys.sha256(SLOW_KEY),
                                ApiKeys.sha256(BURST_KEY),
                                bootstrap,
                                topicPrefix,
                                topicPrefix)
                + extraYaml;
        return start(new CollectorConfigLoader().parse(yaml, "test"));
    }

    /** A collector of {@code config}, for a test that needs other limits or redaction settings than the above. */
    static CollectorFixture start(CollectorConfig config) throws Exception {
        return new CollectorFixture(Collector.start(config, Clock.systemUTC(), Duration.ofSeconds(60)));
    }

    /** The bound port of {@code syslog.listeners[i]}. */
    int syslogPort(int i) {
        return collector.syslogAddress(i).getPort();
    }

    int port() {
        return collector.address().getPort();
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + collector.address().getPort() + path);
    }

    HttpResponse<String> post(String key, String body) throws IOException, InterruptedException {
        return post(key, body.getBytes(StandardCharsets.UTF_8), null);
    }

    HttpResponse<String> post(String key, byte[] body, String encoding) throws IOException, InterruptedException {
        return post(key, body, encoding, "application/x-ndjson");
    }

    /** A body of the given {@code Content-Type} (null: none). */
    HttpResponse<String> post(String key, byte[] body, String encoding, String contentType)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(url("/api/v1/logs"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        if (encoding != null) {
            b.header("Content-Encoding", encoding);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(url(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static byte[] gzip(String s) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bos)) {
            gz.write(s.getBytes(StandardCharsets.UTF_8));
        }
        return bos.toByteArray();
    }

    @Override
    public void close() throws Exception {
        collector.close();
    }
}
