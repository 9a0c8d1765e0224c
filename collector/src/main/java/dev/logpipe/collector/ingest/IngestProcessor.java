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
import java.util.function.LongPredicate;

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
    /** A dead letter's reason is cut to this many characters (it may quote the offending value). */
    static final int MAX_DETAIL = 256;
    /** The largest encoded record: one Kafka message (the topics allow 4 MiB, see TopicSetup). */
    static final int MAX_ENCODED_RECORD = 3 * 1024 * 1024;
    /** A Kafka message holds records of one key up to this many bytes. */
    static final int MAX_MESSAGE_BYTES = 256 * 1024;

    private final RecordCodec codec = new RecordCodec();
    private final Redactor redactor;
    private final PartitionKeys keys;
    private final CollectorConfig.Limits limits;

    public IngestProcessor(CollectorConfig config, Redactor redactor) {
        this.redactor = redactor;
        this.keys = new PartitionKeys(config.kafka().sharedShards());
        this.limits = config.limits();
    }

    /** Processing would pass the in-flight bound; the request is refused (503) and nothing is published. */
    public static final class OverBound extends Exception {
        private static final long serialVersionUID = 1L;

        OverBound() {
            super("in-flight bound", null, false, false);
        }
    }

    /** {@link #process(CollectorConfig.Tenant, byte[], Instant, LongPredicate)} without a memory bound (tests). */
    public IngestResult process(CollectorConfig.Tenant tenant, byte[] body, Instant now) {
        try {
            return process(tenant, body, now, produced -> true);
        } catch (OverBound e) {
            throw new IllegalStateException("unbounded processing cannot pass a bound", e);
        }
    }

    /**
     * @param grow asked, as output accumulates, whether {@code produced} bytes (encoded records and dead letters so
     *             far) may be held; false stops processing with {@link OverBound}
     */
    public IngestResult process(CollectorConfig.Tenant tenant, byte[] body, Instant now, LongPredicate grow)
            throws OverBound {
        Map<String, JsonBuffer> byKey = new LinkedHashMap<>();
        Map<String, Integer> countByKey = new HashMap<>();
        List<IngestResult.Message> messages = new ArrayList<>();
        List<DeadLetter> dead = new ArrayList<>();
        Map<String, Integer> redactions = new HashMap<>();
        int accepted = 0;
        int line = 0;
        long produced = 0;
        long checkedAt = 0;
        JsonBuffer scratch = new JsonBuffer(4 * 1024);
        int start = 0;
        while (start < body.length) {
            int nl = indexOf(body, (byte) '\n', start);
            int end = nl < 0 ? body.length : nl;
            int len = end > start && body[end - 1] == '\r' ? end - start - 1 : end - start;
            line++;
            if (len > 0 && !blank(body, start, len)) {
                int deadBefore = dead.size();
                LogRecord r = accept(tenant, body, start, len, line, now, dead, redactions);
                if (r != null) {
                    scratch.reset();
                    codec.encodeTo(r, scratch);
                    scratch.raw((byte) '\n');
                    if (scratch.size() > MAX_ENCODED_RECORD) {
                        dead.add(new DeadLetter(line, Reason.RECORD_TOO_LARGE, "the record is " + scratch.size()
                                + " bytes once encoded, more than a Kafka message may hold (" + MAX_ENCODED_RECORD
                                + ")", null));
                    } else {
                        String key = keys.keyOf(tenant, r);
                        JsonBuffer buf = byKey.get(key);
                        if (buf != null && buf.size() + scratch.size() > MAX_MESSAGE_BYTES) {
                            // Full: the message goes before this record would push it past the limit.
                            messages.add(new IngestResult.Message(key, buf.toByteArray(), countByKey.remove(key)));
                            byKey.remove(key);
                            buf = null;
                        }
                        if (buf == null) {
                            buf = new JsonBuffer(Math.max(16 * 1024, scratch.size()));
                            byKey.put(key, buf);
                        }
                        buf.raw(scratch.array(), 0, scratch.size());
                        countByKey.merge(key, 1, Integer::sum);
                        accepted++;
                        produced += scratch.size();
                    }
                }
                for (int i = deadBefore; i < dead.size(); i++) {
                    DeadLetter d = dead.get(i);
                    produced += 256 + (d.raw() == null ? 0 : 2L * d.raw().length()) + d.detail().length();
                }
                if (produced - checkedAt >= 64 * 1024) {
                    // Twice the bytes: the messages are copied once more when they are handed to the producer.
                    if (!grow.test(2 * produced)) {
                        throw new OverBound();
                    }
                    checkedAt = produced;
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
            dead.add(new DeadLetter(line, Reason.SCHEMA_INVALID, detail(e.getMessage()),
                    rawForDeadLetter(body, off, len)));
            return null;
        }
        String tooLong = tooLongIdentifier(b);
        if (tooLong != null) {
            dead.add(new DeadLetter(line, Reason.SCHEMA_INVALID, tooLong + " is longer than " + MAX_IDENTIFIER
                    + " characters", rawForDeadLetter(body, off, len)));
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
        return redactor.redactText(raw); // null when too long to check: withheld
    }

    /** Identifying fields are labels and partition keys, not free text: they are kept short. */
    static final int MAX_IDENTIFIER = 256;

    private static String tooLongIdentifier(LogRecord.Builder b) {
        String[][] named = {{"record_id", b.recordId()}, {"service", b.service()}, {"instance_id", b.instanceId()},
                {"region", b.region()}, {"trace_id", b.traceId()}, {"span_id", b.spanId()}};
        for (String[] n : named) {
            if (n[1] != null && n[1].length() > MAX_IDENTIFIER) {
                return n[0];
            }
        }
        return null;
    }

    /** A reason fit to be stored and answered: cut short, and redacted (it may quote a value). */
    private String detail(String reason) {
        String cut = reason.length() > MAX_DETAIL ? reason.substring(0, MAX_DETAIL) + "..." : reason;
        String redacted = redactor.redactText(cut);
        return redacted == null ? "[withheld]" : redacted;
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
