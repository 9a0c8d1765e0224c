package dev.logpipe.collector.ingest;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.ingest.IngestResult.DeadLetter;
import dev.logpipe.collector.ingest.IngestResult.Reason;
import dev.logpipe.collector.redact.Redactor;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns one authenticated request body into what is published, line by line (seed 003 chapter 03): schema
 * validation (invalid lines are dead-lettered with the reason), the tenant from the credential (a payload value is
 * overwritten, I4), {@code observed_time} stamped now, a missing {@code record_id} derived from the tenant, the
 * line's position and its bytes (a retried request gets the same ids), timestamps far from now flagged, and
 * redaction before anything is durable (I5). Thread-safe; no I/O.
 */
public final class IngestProcessor {
    public static final String TIME_FLAG_FIELD = "logpipe.event_time.flag";
    /** Dead letters keep at most this much of the raw line (after redaction). */
    static final int MAX_DEAD_LETTER_RAW = 64 * 1024;

    private final RecordCodec codec = new RecordCodec();
    private final Redactor redactor;
    private final PartitionKeys keys;
    private final CollectorConfig.Limits limits;
    private final int maxMessageBytes;

    public IngestProcessor(CollectorConfig config, Redactor redactor) {
        this.redactor = redactor;
        this.keys = new PartitionKeys(config.kafka().sharedShards());
        this.limits = config.limits();
        this.maxMessageBytes = 256 * 1024;
    }

    public IngestResult process(CollectorConfig.Tenant tenant, byte[] body, Instant now) {
        Map<String, JsonBuffer> byKey = new LinkedHashMap<>();
        Map<String, Integer> countByKey = new HashMap<>();
        List<IngestResult.Message> messages = new ArrayList<>();
        List<DeadLetter> dead = new ArrayList<>();
        Map<String, Integer> redactions = new HashMap<>();
        int accepted = 0;
        int line = 0;
        int start = 0;
        while (start < body.length) {
            int nl = indexOf(body, (byte) '\n', start);
            int end = nl < 0 ? body.length : nl;
            int len = end > start && body[end - 1] == '\r' ? end - start - 1 : end - start;
            line++;
            if (len > 0 && !blank(body, start, len)) {
                LogRecord r = accept(tenant, body, start, len, line, now, dead, redactions);
                if (r != null) {
                    String key = keys.keyOf(tenant, r);
                    JsonBuffer buf = byKey.computeIfAbsent(key, k -> new JsonBuffer(16 * 1024));
                    codec.encodeTo(r, buf);
                    buf.raw((byte) '\n');
                    countByKey.merge(key, 1, Integer::sum);
                    accepted++;
                    if (buf.size() >= maxMessageBytes) {
                        messages.add(new IngestResult.Message(key, buf.toByteArray(), countByKey.remove(key)));
                        byKey.remove(key);
                    }
                }
            }
            start = end + 1;
        }
        byKey.forEach((k, buf) -> messages.add(new IngestResult.Message(k, buf.toByteArray(), countByKey.get(k))));
        return new IngestResult(messages, accepted, dead, redactions);
    }

    private LogRecord accept(CollectorConfig.Tenant tenant, byte[] body, int off, int len, int line, Instant now,
                             List<DeadLetter> dead, Map<String, Integer> redactions) {
        if (len > limits.maxRecordBytes()) {
            dead.add(new DeadLetter(line, Reason.RECORD_TOO_LARGE, "the line is " + len + " bytes, more than "
                    + "limits.max_record_bytes (" + limits.maxRecordBytes() + ")", rawForDeadLetter(body, off, len)));
            return null;
        }
        LogRecord.Builder b;
        try {
            b = codec.decodeToBuilder(body, off, len);
        } catch (RecordFormatException e) {
            dead.add(new DeadLetter(line, Reason.SCHEMA_INVALID, e.getMessage(), rawForDeadLetter(body, off, len)));
            return null;
        }
        b.tenantId(tenant.id()).observedTime(now);
        if (b.recordId() == null || b.recordId().isBlank()) {
            b.recordId(derivedId(tenant.id(), line, body, off, len));
        }
        String flag = timeFlag(b.eventTime(), now);
        if (flag != null) {
            b.field(TIME_FLAG_FIELD, flag);
        }
        Redactor.Result red = redactor.redact(b.build());
        red.hits().forEach((rule, n) -> redactions.merge(rule, n, Integer::sum));
        if (red.heldBack()) {
            // The raw line may hold the very secret that could not be checked: it is not kept.
            dead.add(new DeadLetter(line, Reason.REDACTION_FAIL_CLOSED, red.heldBackReason(), null));
            return null;
        }
        return red.record();
    }

    private String timeFlag(Instant eventTime, Instant now) {
        if (eventTime == null) {
            return null;
        }
        if (eventTime.isAfter(now.plus(limits.maxFutureSkew()))) {
            return "future";
        }
        if (eventTime.isBefore(now.minus(limits.maxPastAge()))) {
            return "past";
        }
        return null;
    }

    private static String derivedId(String tenant, int line, byte[] body, int off, int len) {
        return RecordId.ofContent(RecordId.hashOf(tenant) * 31 + line, body, off, len);
    }

    /** The raw line for the dead-letter topic, redacted like a message (secrets must not become durable there). */
    private String rawForDeadLetter(byte[] body, int off, int len) {
        String raw = new String(body, off, Math.min(len, MAX_DEAD_LETTER_RAW), StandardCharsets.UTF_8);
        String redacted = redactor.redactText(raw);
        return redacted == null ? null : redacted;
    }

    private static boolean blank(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            if (b[i] != ' ' && b[i] != '\t') {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] b, byte v, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
