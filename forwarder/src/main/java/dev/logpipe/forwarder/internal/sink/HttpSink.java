package dev.logpipe.forwarder.internal.sink;

import com.github.luben.zstd.Zstd;
import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.record.JsonBuffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSTs records as NDJSON (gzip by default) to {@code sink.http.url}, e.g. the collector's
 * {@code /api/v1/logs}. A batch is split into requests of at most {@code max_records} records and
 * {@code max_bytes} bytes. A 2xx acknowledges a request. 429 and 503 are {@link SinkBusyException}s
 * carrying {@code Retry-After}; 401/403 (a rejected credential), 408, 5xx and network failures are
 * retried by the caller with backoff; 413 halves the request until a single record remains. Any other
 * 4xx (and 413 for a single record) is permanent for that request: its records go to the bounded
 * dead-letter file with the status and response, are counted, and count as handled, so one poisoned
 * request never stalls a file forever. Requests already acknowledged are not sent again when the
 * caller retries the same batch.
 */
public final class HttpSink implements Sink {
    private static final Logger log = LoggerFactory.getLogger(HttpSink.class);
    private static final int MAX_RESPONSE_BYTES = 4096;

    private final ForwarderConfig.HttpSink config;
    private final HttpClient client;
    private final LongConsumer deadLettered;
    /** The batch content (object and generation: objects are reused) whose first requests are acknowledged. */
    private Batch current;

    private long currentGeneration;
    private int acknowledged;
    private int split = Integer.MAX_VALUE;

    public HttpSink(ForwarderConfig.HttpSink config, LongConsumer deadLettered) {
        this.config = config;
        this.deadLettered = deadLettered;
        this.client = HttpClient.newBuilder()
                .connectTimeout(config.connectTimeout())
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    @Override
    public void publish(Batch batch) throws IOException {
        if (batch != current || batch.generation() != currentGeneration) {
            current = batch;
            currentGeneration = batch.generation();
            acknowledged = 0;
            split = Integer.MAX_VALUE;
        }
        JsonBuffer wire = batch.wire();
        while (acknowledged < batch.size()) {
            int from = acknowledged;
            int to = from;
            int start = batch.wireStart(from);
            int limit = Math.min(config.maxRecords(), split);
            while (to < batch.size()
                    && to - from < limit
                    && (to == from || batch.wireEnd(to) + 1 - start <= config.maxBytes())) {
                to++;
            }
            int end = batch.wireEnd(to - 1) + 1;
            if (!send(wire.array(), start, end - start, to - from, batch)) {
                // 413: the endpoint's body cap is below ours; send half as many records until one fits.
                split = Math.max(1, (to - from) / 2);
                continue;
            }
            acknowledged = to;
        }
        current = null;
        split = Integer.MAX_VALUE;
    }

    /** Returns false for a 413 that a smaller request may avoid; throws for retryable failures. */
    private boolean send(byte[] bytes, int off, int len, int records, Batch batch) throws IOException {
        // Without compression the request reads the batch's own bytes: publish returns only after the response.
        HttpRequest.BodyPublisher body = switch (config.compression()) {
            case GZIP -> HttpRequest.BodyPublishers.ofByteArray(gzip(bytes, off, len));
            case ZSTD -> HttpRequest.BodyPublishers.ofByteArray(zstd(bytes, off, len));
            case NONE -> HttpRequest.BodyPublishers.ofByteArray(bytes, off, len);
        };
        HttpRequest.Builder req = HttpRequest.newBuilder(config.url())
                .timeout(config.requestTimeout())
                .header("Content-Type", "application/x-ndjson")
                .POST(body);
        if (config.compression() != ForwarderConfig.HttpCompression.NONE) {
            req.header("Content-Encoding", config.compression().name().toLowerCase(Locale.ROOT));
        }
        if (config.token() != null) {
            req.header("Authorization", "Bearer " + config.token());
        }
        HttpResponse<byte[]> resp;
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        // Keep at most MAX_RESPONSE_BYTES of the body in memory; the rest is read and discarded.
        HttpResponse.BodyHandler<byte[]> bounded = info -> HttpResponse.BodySubscribers.mapping(
                HttpResponse.BodySubscribers.ofByteArrayConsumer(chunk -> chunk.ifPresent(b -> {
                    int room = MAX_RESPONSE_BYTES - head.size();
                    if (room > 0) {
                        head.write(b, 0, Math.min(room, b.length));
                    }
                })),
                ignored -> head.toByteArray());
        CompletableFuture<HttpResponse<byte[]>> call = client.sendAsync(req.build(), bounded);
        try {
            // The client's own timeout stops at the headers; this one covers the body too.
            resp = call.get(config.requestTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new IOException("no complete response from " + config.url() + " within "
                    + config.requestTimeout().toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IOException(
                    "POST to " + config.url() + " failed: " + cause.getClass().getSimpleName()
                            + (cause.getMessage() == null ? "" : ": " + cause.getMessage()),
                    cause);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while posting to " + config.url(), e);
        }
        int status = resp.statusCode();
        byte[] raw = resp.body() == null ? new byte[0] : resp.body();
        String response = new String(raw, 0, Math.min(raw.length, MAX_RESPONSE_BYTES), StandardCharsets.UTF_8).strip();
        if (status / 100 == 2) {
            return true;
        }
        if (status == 429 || status == 503) {
            throw new SinkBusyException(
                    "HTTP " + status + " from " + config.url() + ": " + response,
                    retryAfter(resp.headers().firstValue("Retry-After").orElse(null)));
        }
        if (status == 401 || status == 403) {
            // A rejected credential is a configuration problem, not a poisoned batch: stall and say so.
            throw new IOException("HTTP " + status + " from " + config.url() + ": the credential (sink.http.token or "
                    + "sink.http.token_env) was rejected; records wait in the source files until it is fixed: "
                    + response);
        }
        if (status == 408) {
            throw new IOException("HTTP 408 from " + config.url() + ": request timed out at the server: " + response);
        }
        if (status == 413 && records > 1) {
            return false;
        }
        if (status / 100 == 4) {
            deadLetter(bytes, off, len, records, new Rejection(status, response), batch);
            return true;
        }
        throw new IOException("HTTP " + status + " from " + config.url() + ": " + response);
    }

    /** What the destination answered to a request it rejected for good (a 4xx). */
    private record Rejection(int status, String response) {}

    /** Appends the rejected records to the dead-letter file, one JSON object per record. */
    private void deadLetter(byte[] bytes, int off, int len, int records, Rejection rejection, Batch batch)
            throws IOException {
        int status = rejection.status();
        String response = rejection.response();
        JsonBuffer out = new JsonBuffer(len + 256 * records + 64);
        int pos = off;
        int end = off + len;
        while (pos < end) {
            int nl = pos;
            while (nl < end && bytes[nl] != '\n') {
                nl++;
            }
            out.ascii("{\"status\":")
                    .number(status)
                    .ascii(",\"response\":")
                    .string(response)
                    .ascii(",\"source\":")
                    .string(batch.source().path())
                    .ascii(",\"record\":");
            out.raw(bytes, pos, nl - pos).ascii("}\n");
            pos = nl + 1;
        }
        Path path = config.deadLetterPath();
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (FileChannel ch = FileChannel.open(
                path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            if (ch.size() + out.size() > config.deadLetterMaxBytes()) {
                // Bounded (invariant I6, docs/architecture.md): rather than grow without limit or drop, stall until an
                // operator makes room.
                throw new IOException(
                        "dead-letter file " + path + " would exceed sink.http.dead_letter_max_bytes ("
                                + config.deadLetterMaxBytes() + " bytes); " + records + " records rejected with HTTP "
                                + status
                                + " wait in the source file. Inspect, move the file aside, and they are written on the next try");
            }
            ByteBuffer buf = ByteBuffer.wrap(out.array(), 0, out.size());
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(false);
        }
        deadLettered.accept(records);
        log.warn(
                "{} rejected {} records with HTTP {} ({}); they were written to the dead-letter file {} and the "
                        + "watermark moves on",
                config.url(),
                records,
                status,
                response,
                path);
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

    /** A zstd frame (RFC 8878, Content-Encoding: zstd) at level 1: about 4x the speed of gzip at its fastest. */
    private static byte[] zstd(byte[] bytes, int off, int len) throws IOException {
        byte[] out = new byte[(int) Zstd.compressBound(len)];
        long n = Zstd.compressByteArray(out, 0, out.length, bytes, off, len, 1);
        if (Zstd.isError(n)) {
            throw new IOException("zstd compression failed: " + Zstd.getErrorName(n));
        }
        return Arrays.copyOf(out, (int) n);
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
