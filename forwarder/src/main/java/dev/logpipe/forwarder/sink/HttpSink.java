package dev.logpipe.forwarder.sink;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.record.JsonBuffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.function.LongConsumer;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSTs records as NDJSON (gzip by default) to {@code sink.http.url}, e.g. the collector's
 * {@code /api/v1/logs}. A batch is split into requests of at most {@code max_records} records and
 * {@code max_bytes} bytes. A 2xx acknowledges a request. 429 and 503 are {@link SinkBusyException}s
 * carrying {@code Retry-After}; other failures are retried by the caller with backoff. Any other 4xx
 * is permanent for that request: its records go to the dead-letter file with the status and response,
 * are counted, and count as handled, so one poisoned request never stalls a file forever. Requests
 * already acknowledged are not sent again when the caller retries the same batch.
 */
public final class HttpSink implements Sink {
    private static final Logger log = LoggerFactory.getLogger(HttpSink.class);
    private static final int MAX_RESPONSE_BYTES = 4096;

    private final ForwarderConfig.HttpSink config;
    private final HttpClient client;
    private final LongConsumer deadLettered;
    private Batch current;
    private int acknowledged;

    public HttpSink(ForwarderConfig.HttpSink config, LongConsumer deadLettered) {
        this.config = config;
        this.deadLettered = deadLettered;
        this.client = HttpClient.newBuilder().connectTimeout(config.connectTimeout())
                .version(HttpClient.Version.HTTP_1_1).build();
    }

    @Override
    public void publish(Batch batch) throws IOException {
        if (batch != current) {
            current = batch;
            acknowledged = 0;
        }
        JsonBuffer wire = batch.wire();
        while (acknowledged < batch.size()) {
            int from = acknowledged;
            int to = from;
            int start = batch.wireStart(from);
            while (to < batch.size() && to - from < config.maxRecords()
                    && (to == from || batch.wireEnd(to) + 1 - start <= config.maxBytes())) {
                to++;
            }
            int end = batch.wireEnd(to - 1) + 1;
            send(wire.array(), start, end - start, to - from, batch);
            acknowledged = to;
        }
        current = null;
    }

    private void send(byte[] bytes, int off, int len, int records, Batch batch) throws IOException {
        byte[] body = config.gzip() ? gzip(bytes, off, len) : java.util.Arrays.copyOfRange(bytes, off, off + len);
        HttpRequest.Builder req = HttpRequest.newBuilder(config.url()).timeout(config.requestTimeout())
                .header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (config.gzip()) {
            req.header("Content-Encoding", "gzip");
        }
        if (config.token() != null) {
            req.header("Authorization", "Bearer " + config.token());
        }
        HttpResponse<InputStream> resp;
        try {
            resp = client.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while posting to " + config.url(), e);
        }
        int status = resp.statusCode();
        String response = readSome(resp.body());
        if (status / 100 == 2) {
            return;
        }
        if (status == 429 || status == 503) {
            throw new SinkBusyException("HTTP " + status + " from " + config.url() + ": " + response,
                    retryAfter(resp.headers().firstValue("Retry-After").orElse(null)));
        }
        if (status / 100 == 4) {
            deadLetter(bytes, off, len, records, status, response, batch);
            return;
        }
        throw new IOException("HTTP " + status + " from " + config.url() + ": " + response);
    }

    /** Appends the rejected records to the dead-letter file, one JSON object per record. */
    private void deadLetter(byte[] bytes, int off, int len, int records, int status, String response, Batch batch)
            throws IOException {
        JsonBuffer out = new JsonBuffer(len + 256 * records + 64);
        int pos = off;
        int end = off + len;
        while (pos < end) {
            int nl = pos;
            while (nl < end && bytes[nl] != '\n') {
                nl++;
            }
            out.ascii("{\"status\":").number(status).ascii(",\"response\":").string(response)
                    .ascii(",\"source\":").string(batch.source().path()).ascii(",\"record\":");
            out.raw(bytes, pos, nl - pos).ascii("}\n");
            pos = nl + 1;
        }
        Path path = config.deadLetterPath();
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer buf = ByteBuffer.wrap(out.array(), 0, out.size());
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(false);
        }
        deadLettered.accept(records);
        log.warn("{} rejected {} records with HTTP {} ({}); they were written to the dead-letter file {} and the "
                + "watermark moves on", config.url(), records, status, response, path);
    }

    private static byte[] gzip(byte[] bytes, int off, int len) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream(Math.max(64, len / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(bos, 64 * 1024) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        }) {
            gz.write(bytes, off, len);
        }
        return bos.toByteArray();
    }

    private static String readSome(InputStream in) throws IOException {
        try (in) {
            byte[] b = in.readNBytes(MAX_RESPONSE_BYTES);
            return new String(b, StandardCharsets.UTF_8).strip();
        }
    }

    /** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
    static Duration retryAfter(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(header.trim())));
        } catch (NumberFormatException e) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(header.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration d = Duration.between(ZonedDateTime.now(at.getZone()), at);
                return d.isNegative() ? Duration.ZERO : d;
            } catch (DateTimeParseException e2) {
                return null;
            }
        }
    }

    @Override
    public String describe() {
        return "http " + config.url();
    }

    @Override
    public void close() {
        // HttpClient has no close() on Java 17; its threads are daemons and idle connections time out.
    }
}
