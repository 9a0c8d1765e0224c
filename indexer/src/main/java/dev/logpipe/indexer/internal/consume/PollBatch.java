package dev.logpipe.indexer.internal.consume;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import dev.logpipe.record.RecordId;
import dev.logpipe.record.RecordRules;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The writes of one poll, grouped by shard: each records-topic value split on newlines and decoded, each
 * dead-letter-topic value parsed. A line that cannot be indexed becomes a dead letter with a reason and, whenever
 * the message says whose it is, its tenant ({@link #tenantOf}), so the tenant finds it; nothing is dropped without a
 * counter. Built on the decode thread ({@code indexer-decode}, {@link Decoder}), then handed whole to the loop thread
 * ({@code indexer-loop}), which writes it ({@link BatchWriter}); never touched by both at once.
 */
final class PollBatch {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] OUT_OF_RANGE_MARK = "_event_time_out_of_range".getBytes();

    final Map<ShardId, List<IndexRecord>> records = new HashMap<>();
    final Map<ShardId, List<DeadLetterEntry>> deadLetterDocs = new HashMap<>();
    /** Where each written record came from, parallel to {@link #records}' lists, for refusals. */
    final Map<ShardId, List<Origin>> origins = new HashMap<>();

    int lines;

    private final RecordCodec codec;
    private final Router router;
    private final DeadLetters deadLetters;
    private final IndexerMetrics metrics;
    private final Instant now;
    private final String defaultTenant;

    /**
     * Where a line came from and whose it is (its tenant, null when unknown), for its dead letter.
     *
     * @param time the observed time of the line's dead letter, should it get one ({@link #timeOf})
     */
    record Origin(String topic, int partition, long offset, String tenant, Instant time) {}

    /** @param defaultTenant the tenant of a record without {@code tenant_id} ({@code kafka.default_tenant}), or null */
    PollBatch(
            RecordCodec codec,
            Router router,
            DeadLetters deadLetters,
            IndexerMetrics metrics,
            Instant now,
            String defaultTenant) {
        this.codec = codec;
        this.router = router;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.now = now;
        this.defaultTenant = defaultTenant;
    }

    void addRecords(ConsumerRecord<byte[], byte[]> m) {
        byte[] v = m.value();
        if (v == null) {
            metrics.deadLettered("EMPTY_MESSAGE");
            deadLetters.publish(
                    "EMPTY_MESSAGE",
                    "a records-topic message without a value",
                    origin(m, fallbackTenant(m)),
                    new byte[0],
                    0,
                    0);
            return;
        }
        int start = 0;
        for (int i = 0; i <= v.length; i++) {
            if (i == v.length || v[i] == '\n') {
                int end = i > start && v[i - 1] == '\r' ? i - 1 : i;
                if (end > start) {
                    line(m, v, start, end - start);
                }
                start = i + 1;
            }
        }
    }

    private void line(ConsumerRecord<byte[], byte[]> m, byte[] v, int off, int len) {
        lines++;
        LogRecord r;
        try {
            r = codec.decode(v, off, len);
        } catch (RecordFormatException | RuntimeException e) {
            reject("SCHEMA_INVALID", e.getMessage(), origin(m, tenantOf(m, v, off, len)), v, off, len);
            return;
        }
        boolean attributed = false;
        if (r.tenantId() == null && defaultTenant != null) {
            // A record written to the topic without a tenant (a forwarder's Kafka sink): the topic's tenant.
            r = r.toBuilder().tenantId(defaultTenant).build();
            attributed = true;
        }
        String problem = RecordRules.tenantProblem(r.tenantId());
        if (problem != null) {
            reject(
                    r.tenantId() == null ? "NO_TENANT" : "TENANT_INVALID",
                    "tenant_id " + problem
                            + (r.tenantId() == null ? " (set kafka.default_tenant to index records without one)" : ""),
                    origin(m, fallbackTenant(m)),
                    v,
                    off,
                    len);
            return;
        }
        // The rest of RecordRules.problem, as the collector applied it: the tenant was checked above and the codec
        // holds
        // the field count and name lengths to the rules as it reads, so only the record_id is left to check.
        problem = RecordId.problem(r.recordId());
        if (problem != null) {
            reject("SCHEMA_INVALID", problem, origin(m, r.tenantId()), v, off, len);
            return;
        }
        if (r.recordId() == null || r.recordId().isEmpty()) {
            // Deterministic from tenant and content, so a replay of the same line gets the same id.
            r = r.toBuilder()
                    .recordId(RecordId.ofContent(RecordId.hashOf(r.tenantId()), v, off, len))
                    .build();
        }
        Router.Route route;
        try {
            route = router.route(r, m.timestamp());
        } catch (ArithmeticException | DateTimeException e) {
            reject(
                    "TIME_OUT_OF_RANGE",
                    "event_time or observed_time cannot be indexed: " + e.getMessage(),
                    origin(m, r.tenantId()),
                    v,
                    off,
                    len);
            return;
        }
        byte[] src = v;
        int srcOff = off;
        int srcLen = len;
        if (attributed) {
            metrics.defaultTenant();
        }
        if (route.outOfRange()) {
            metrics.outOfRange();
            r = r.toBuilder().field(new String(OUT_OF_RANGE_MARK), true).build();
        }
        if (route.outOfRange() || attributed) { // the stored source says what was indexed
            src = codec.encode(r);
            srcOff = 0;
            srcLen = src.length;
        }
        records.computeIfAbsent(route.shard(), k -> new ArrayList<>())
                .add(new IndexRecord(r, route.eventTime(), route.observedTime(), src, srcOff, srcLen));
        origins.computeIfAbsent(route.shard(), k -> new ArrayList<>())
                .add(new Origin(m.topic(), m.partition(), m.offset(), r.tenantId(), timeOf(m)));
    }

    /** Dead-letters {@code len} bytes of {@code v} from {@code off}: a line of the message {@code from} names. */
    void reject(String reason, String detail, Origin from, byte[] v, int off, int len) {
        metrics.deadLettered(reason);
        deadLetters.publish(reason, detail, from, v, off, len);
    }

    /** Where a line of {@code m} came from, whose it is ({@code tenant}, null when unknown) and its {@link #timeOf}. */
    private Origin origin(ConsumerRecord<byte[], byte[]> m, String tenant) {
        return new Origin(m.topic(), m.partition(), m.offset(), tenant, timeOf(m));
    }

    /**
     * The {@code observed_time} of a dead letter of the message: its Kafka timestamp, not the clock, so that a replay
     * (after a store failure or a rebalance) publishes the same dead letter again and its index upsert replaces the
     * first one instead of adding a copy. The clock only for a message without a timestamp.
     */
    Instant timeOf(ConsumerRecord<byte[], byte[]> m) {
        return m.timestamp() >= 0 ? Instant.ofEpochMilli(m.timestamp()) : now;
    }

    /**
     * Whose a line is that cannot be read as a record, for its dead letter: the tenant the collector named in the
     * message's header, else a {@code tenant_id} found by a lenient read of the line, else {@code kafka.default_tenant}
     * (null only when none of them is a valid tenant id: then the dead letter is counted as skipped, not indexed).
     */
    String tenantOf(ConsumerRecord<byte[], byte[]> m, byte[] v, int off, int len) {
        String header = headerTenant(m);
        if (header != null) {
            return header;
        }
        String peeked = peekTenant(v, off, len);
        return RecordRules.tenantProblem(peeked) == null ? peeked : validDefault();
    }

    /** The header's tenant, else {@code kafka.default_tenant}: for a record whose own tenant is missing or invalid. */
    private String fallbackTenant(ConsumerRecord<byte[], byte[]> m) {
        String header = headerTenant(m);
        return header != null ? header : validDefault();
    }

    private String validDefault() {
        return RecordRules.tenantProblem(defaultTenant) == null ? defaultTenant : null;
    }

    /** The valid tenant of the header {@link RecordCodec#TENANT_HEADER}, or null. */
    static String headerTenant(ConsumerRecord<byte[], byte[]> m) {
        Header h = m.headers().lastHeader(RecordCodec.TENANT_HEADER);
        if (h == null || h.value() == null) {
            return null;
        }
        String tenant = new String(h.value(), StandardCharsets.UTF_8);
        return RecordRules.tenantProblem(tenant) == null ? tenant : null;
    }

    /** The string {@code tenant_id} of a top-level JSON object, read up to the first error; null when not met. */
    static String peekTenant(byte[] v, int off, int len) {
        try (JsonParser p = JSON.getFactory().createParser(v, off, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (name.equals("tenant_id") && t == JsonToken.VALUE_STRING) {
                    return p.getText();
                }
                p.skipChildren();
            }
        } catch (IOException | RuntimeException e) {
            // lenient: what was read before the error is all there is
        }
        return null;
    }

    /**
     * A dead-letter-topic value: indexed into the dead-letter shard of its {@code tenant_id} (or of its header's
     * tenant), or counted as skipped when it has neither.
     */
    void addDeadLetter(ConsumerRecord<byte[], byte[]> m) {
        byte[] v = m.value();
        try {
            JsonNode o = v == null ? null : JSON.readTree(v);
            if (o == null || !o.isObject()) {
                metrics.deadLettersSkipped("NOT_JSON");
                return;
            }
            String tenant = o.path("tenant_id").isTextual() ? o.get("tenant_id").textValue() : null;
            if (RecordRules.tenantProblem(tenant) != null) {
                tenant = headerTenant(m);
            }
            if (tenant == null) {
                metrics.deadLettersSkipped("NO_TENANT");
                return;
            }
            Instant observed = o.path("observed_time").isTextual()
                    ? Instant.parse(o.get("observed_time").textValue())
                    : Instant.ofEpochMilli(m.timestamp());
            observed.toEpochMilli();
            String reason = o.path("reason").asText("UNKNOWN");
            String detail = o.path("detail").isTextual() ? o.get("detail").textValue() : null;
            String raw = o.path("raw").isTextual() ? o.get("raw").textValue() : null;
            ShardId shard = ShardId.deadLetters(tenant, LocalDate.ofInstant(observed, ZoneOffset.UTC));
            String id = deadLetterId(o, tenant, v);
            deadLetterDocs
                    .computeIfAbsent(shard, k -> new ArrayList<>())
                    .add(new DeadLetterEntry(id, tenant, reason, detail, raw, observed, v, 0, v.length));
        } catch (IOException | RuntimeException e) {
            metrics.deadLettersSkipped("NOT_READABLE");
        }
    }

    /**
     * The document id of a dead letter: for one the indexer wrote, from where its line was (topic, partition, offset)
     * and the line, so each replay of that line, which publishes it again, replaces the same document whatever its
     * detail says; for any other, from the whole message.
     */
    static String deadLetterId(JsonNode o, String tenant, byte[] v) {
        if ("indexer".equals(o.path("source").asText())
                && o.path("topic").isTextual()
                && o.path("partition").canConvertToInt()
                && o.path("offset").canConvertToLong()) {
            String where = o.get("topic").textValue() + "-" + o.get("partition").asInt() + "@"
                    + o.get("offset").asLong();
            byte[] raw = o.path("raw").asText("").getBytes(StandardCharsets.UTF_8);
            return RecordId.ofContent(RecordId.hashOf(tenant) * 31 + RecordId.hashOf(where), raw, 0, raw.length);
        }
        return RecordId.ofContent(RecordId.hashOf(tenant), v, 0, v.length);
    }
}
