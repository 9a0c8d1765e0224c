package dev.logpipe.collector.internal.ingest;

import dev.logpipe.collector.internal.ingest.IngestResult.DeadLetter;
import dev.logpipe.collector.internal.ingest.IngestResult.Reason;
import dev.logpipe.record.JsonBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One request's output on its way to the {@link Outlet}: encoded records grouped per partition key into NDJSON
 * messages of at most {@link #MAX_MESSAGE_BYTES}, handed over as each fills, and all of them once the buffers
 * hold {@link #FLUSH_BYTES} (so a request holds little whatever its size or its number of keys); dead letters
 * handed over at once; counts and the first errors kept for the answer. Not thread-safe: one request, one thread.
 */
final class RequestOutput {
    /** A Kafka message holds records of one key up to this many bytes. */
    static final int MAX_MESSAGE_BYTES = 256 * 1024;
    /** The open buffers of a request are handed over once they hold this much. */
    static final long FLUSH_BYTES = 1024 * 1024;

    private final Outlet outlet;
    private final String tenant;
    private final Map<String, JsonBuffer> byKey = new LinkedHashMap<>();
    private final Map<String, Integer> countByKey = new HashMap<>();
    private final Map<Reason, Integer> deadByReason = new EnumMap<>(Reason.class);
    private final List<DeadLetter> errors = new ArrayList<>();
    private final Map<String, Integer> redactions = new HashMap<>();
    private final Map<Reason, BitSet> deadLines = new EnumMap<>(Reason.class);
    private long bufferedBytes;
    private int accepted;
    private int deadLettered;
    private int fieldCollisions;

    RequestOutput(Outlet outlet, String tenant) {
        this.outlet = outlet;
        this.tenant = tenant;
    }

    /** Adds one encoded record (with its trailing newline) under {@code key}. */
    void record(String key, JsonBuffer encoded) throws Outlet.Unavailable {
        JsonBuffer buf = byKey.get(key);
        if (buf != null && buf.size() + encoded.size() > MAX_MESSAGE_BYTES) {
            // Full: the message goes before this record would push it past the limit.
            send(key, byKey.remove(key));
            buf = null;
        }
        if (buf == null) {
            buf = new JsonBuffer(Math.max(16 * 1024, encoded.size()));
            byKey.put(key, buf);
            bufferedBytes += buf.array().length;
        }
        int before = buf.array().length;
        buf.raw(encoded.array(), 0, encoded.size());
        bufferedBytes += buf.array().length - before;
        countByKey.merge(key, 1, Integer::sum);
        accepted++;
        if (bufferedBytes >= FLUSH_BYTES) {
            flush();
        }
    }

    void deadLetter(DeadLetter d, byte[] encoded) throws Outlet.Unavailable {
        outlet.deadLetter(tenant, encoded);
        deadLettered++;
        deadByReason.merge(d.reason(), 1, Integer::sum);
        deadLines.computeIfAbsent(d.reason(), r -> new BitSet()).set(d.line());
        if (errors.size() < IngestResult.MAX_ERRORS) {
            errors.add(d);
        }
    }

    void redacted(Map<String, Integer> hits) {
        hits.forEach((rule, n) -> redactions.merge(rule, n, Integer::sum));
    }

    void fieldCollisions(int n) {
        fieldCollisions += n;
    }

    /** Bytes held in open message buffers (their capacity, not their fill). */
    long heldBytes() {
        return bufferedBytes;
    }

    /** Hands over every open message. */
    void flush() throws Outlet.Unavailable {
        for (Map.Entry<String, JsonBuffer> e : byKey.entrySet()) {
            send(e.getKey(), e.getValue());
        }
        byKey.clear();
    }

    private void send(String key, JsonBuffer buf) throws Outlet.Unavailable {
        bufferedBytes -= buf.array().length;
        outlet.record(tenant, key, buf.toByteArray(), countByKey.remove(key));
    }

    /** Hands over the rest, waits until everything is committed, and tells what the request became. */
    IngestResult finish() throws Outlet.Unavailable {
        flush();
        outlet.await();
        return result();
    }

    IngestResult result() {
        return new IngestResult(accepted, deadLettered, deadByReason, errors, redactions, fieldCollisions, deadLines);
    }
}
