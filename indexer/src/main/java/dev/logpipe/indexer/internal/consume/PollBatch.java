package dev.logpipe.indexer.internal.consume;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.TenantDirectory;
import dev.logpipe.index.store.DeadLetterEntry;
import dev.logpipe.index.store.IndexRecord;
import dev.logpipe.indexer.internal.metrics.IndexerMetrics;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import dev.logpipe.record.RecordId;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The writes of one poll, grouped by shard: each records-topic value split on newlines and decoded, each
 * dead-letter-topic value parsed. A line that cannot be indexed becomes a dead letter with a reason; nothing is
 * dropped without a counter. Built and used by the loop thread.
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

    record Origin(String topic, int partition, long offset, String tenant) {}

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
                    null,
                    new byte[0],
                    0,
                    0,
                    m.topic(),
                    m.partition(),
                    m.offset(),
                    now);
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
            reject("SCHEMA_INVALID", e.getMessage(), null, m, v, off, len);
            return;
        }
        boolean attributed = false;
        if (r.tenantId() == null && defaultTenant != null) {
            // A record written to the topic without a tenant (a forwarder's Kafka sink): the topic's tenant.
            r = r.toBuilder().tenantId(defaultTenant).build();
            attributed = true;
        }
        String problem = TenantDirectory.problem(r.tenantId());
        if (problem != null) {
            reject(
                    r.tenantId() == null ? "NO_TENANT" : "TENANT_INVALID",
                    "tenant_id " + problem
                            + (r.tenantId() == null ? " (set kafka.default_tenant to index records without one)" : ""),
                    null,
                    m,
                    v,
                    off,
                    len);
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
                    r.tenantId(),
                    m,
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
                .add(new Origin(m.topic(), m.partition(), m.offset(), r.tenantId()));
    }

    void reject(
            String reason, String detail, String tenant, ConsumerRecord<byte[], byte[]> m, byte[] v, int off, int len) {
        metrics.deadLettered(reason);
        deadLetters.publish(reason, detail, tenant, v, off, len, m.topic(), m.partition(), m.offset(), now);
    }

    /** A dead-letter-topic value: indexed into its tenant's dead-letter shard, or counted when it has no tenant. */
    void addDeadLetter(ConsumerRecord<byte[], byte[]> m) {
        byte[] v = m.value();
        try {
            JsonNode o = v == null ? null : JSON.readTree(v);
            if (o == null || !o.isObject()) {
                metrics.deadLettersSkipped("NOT_JSON");
                return;
            }
            String tenant = o.path("tenant_id").isTextual() ? o.get("tenant_id").textValue() : null;
            if (TenantDirectory.problem(tenant) != null) {
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
            String id = RecordId.ofContent(RecordId.hashOf(tenant), v, 0, v.length);
            deadLetterDocs
                    .computeIfAbsent(shard, k -> new ArrayList<>())
                    .add(new DeadLetterEntry(id, tenant, reason, detail, raw, observed, v, 0, v.length));
        } catch (IOException | RuntimeException e) {
            metrics.deadLettersSkipped("NOT_READABLE");
        }
    }
}
