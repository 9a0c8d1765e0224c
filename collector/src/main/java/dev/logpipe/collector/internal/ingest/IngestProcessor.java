package dev.logpipe.collector.internal.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.internal.ingest.IngestResult.DeadLetter;
import dev.logpipe.collector.internal.ingest.IngestResult.Reason;
import dev.logpipe.collector.internal.redact.Redactor;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import dev.logpipe.record.RecordId;
import dev.logpipe.record.RecordRules;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Turns one line of an authenticated request into what is published (docs/collector.md): schema validation
 * (invalid lines are dead-lettered with the reason), the tenant from the credential (a payload value is
 * overwritten, I4), {@code observed_time} stamped now, a missing {@code record_id} derived from the tenant, the
 * line's number and its bytes (a retried request gets the same ids), a client {@code record_id} checked (length,
 * characters), timestamps far from now flagged, redaction before anything is durable (I5), and last the record
 * checked against {@link RecordRules}, which the indexer applies too. Thread-safe; no I/O of its own.
 */
public final class IngestProcessor {
    public static final String TIME_FLAG_FIELD = "logpipe.event_time.flag";
    /** Dead letters keep at most this much of the raw line (cut after redaction). */
    static final int MAX_DEAD_LETTER_RAW = 64 * 1024;
    /** A dead letter's reason is cut to this many characters (it may quote the offending value). */
    static final int MAX_DETAIL = 256;
    /** The largest encoded record: one Kafka message (the topics allow 4 MiB, see TopicSetup). */
    static final int MAX_ENCODED_RECORD = 3 * 1024 * 1024;
    /** Identifying fields are labels and partition keys, not free text: they are kept short. */
    static final int MAX_IDENTIFIER = 256;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RecordCodec codec = new RecordCodec();
    private final Redactor redactor;
    private final PartitionKeys keys;
    private final CollectorConfig.Limits limits;

    public IngestProcessor(CollectorConfig config, Redactor redactor) {
        this.redactor = redactor;
        this.keys = new PartitionKeys(config.kafka().sharedShards());
        this.limits = config.limits();
    }

    public CollectorConfig.Limits limits() {
        return limits;
    }

    /**
     * The lines of one request, what is the same for each: whose they are ({@code tenant}), their observed time
     * ({@code now}), the buffer a record is encoded in and the output records and dead letters go to. One per request,
     * not per line: the per-line calls below take it with the line's own bytes and number.
     */
    record Lines(CollectorConfig.Tenant tenant, Instant now, JsonBuffer scratch, RequestOutput out) {}

    /** Processes line {@code line} ({@code len} bytes at {@code off}) into {@code lines.out()}. */
    void line(Lines lines, byte[] body, int off, int len, int line) throws Outlet.Unavailable {
        CollectorConfig.Tenant tenant = lines.tenant();
        Instant now = lines.now();
        JsonBuffer scratch = lines.scratch();
        RequestOutput out = lines.out();
        LogRecord r = accept(lines, body, off, len, line);
        if (r == null) {
            return;
        }
        scratch.reset();
        codec.encodeTo(r, scratch);
        scratch.raw((byte) '\n');
        if (scratch.size() > MAX_ENCODED_RECORD) {
            deadLetter(
                    out,
                    tenant,
                    now,
                    new DeadLetter(
                            line,
                            Reason.RECORD_TOO_LARGE,
                            "the record is "
                                    + scratch.size() + " bytes once encoded, more than a Kafka message may hold ("
                                    + MAX_ENCODED_RECORD
                                    + ")",
                            null));
            return;
        }
        out.record(keys.keyOf(tenant, r), scratch);
    }

    /** A line longer than {@code limits.max_record_bytes}: its bytes were never held, so none are kept. */
    void tooLong(Lines lines, long length, int line) throws Outlet.Unavailable {
        deadLetter(
                lines.out(),
                lines.tenant(),
                lines.now(),
                new DeadLetter(
                        line,
                        Reason.RECORD_TOO_LARGE,
                        "the line is " + length + " bytes, more than limits.max_record_bytes ("
                                + limits.maxRecordBytes() + ")",
                        null));
    }

    /** An item the wire-format decoder refused ({@code reason}): dead-lettered with its (redacted) raw bytes. */
    void refused(Lines lines, String reason, byte[] body, int off, int len, int line) throws Outlet.Unavailable {
        deadLetter(
                lines.out(),
                lines.tenant(),
                lines.now(),
                new DeadLetter(line, Reason.SCHEMA_INVALID, detail(reason), rawForDeadLetter(body, off, len)));
    }

    private LogRecord accept(Lines lines, byte[] body, int off, int len, int line) throws Outlet.Unavailable {
        CollectorConfig.Tenant tenant = lines.tenant();
        Instant now = lines.now();
        RequestOutput out = lines.out();
        LogRecord.Builder b;
        try {
            b = codec.decodeToBuilder(body, off, len);
        } catch (RecordFormatException e) {
            deadLetter(
                    out,
                    tenant,
                    now,
                    new DeadLetter(
                            line, Reason.SCHEMA_INVALID, detail(e.getMessage()), rawForDeadLetter(body, off, len)));
            return null;
        }
        String bad = RecordId.problem(b.recordId());
        if (bad == null) {
            bad = tooLongIdentifier(b);
        }
        if (bad != null) {
            deadLetter(
                    out,
                    tenant,
                    now,
                    new DeadLetter(line, Reason.SCHEMA_INVALID, bad, rawForDeadLetter(body, off, len)));
            return null;
        }
        b.tenantId(tenant.id()).observedTime(now);
        if (b.recordId() == null || b.recordId().isBlank()) {
            b.recordId(RecordId.ofContent(RecordId.hashOf(tenant.id()) * 31 + line, body, off, len));
        }
        String flag = timeFlag(b.eventTime(), now);
        if (flag != null) {
            b.pipelineField(TIME_FLAG_FIELD, flag);
        }
        LogRecord built = b.build();
        Redactor.Result red = redactor.redact(built);
        out.redacted(red.hits());
        if (red.heldBack()) {
            // The raw line may hold the very secret that could not be checked: it is not kept.
            deadLetter(
                    out, tenant, now, new DeadLetter(line, Reason.REDACTION_FAIL_CLOSED, red.heldBackReason(), null));
            return null;
        }
        // What is published is what the indexer will read: the same rules, so an acknowledged record is never one
        // the indexer refuses. The codec held the fields to them already; only the flag (one more field) and the
        // redaction (the withheld marker, renamed and lengthened names) can break them, so the fields are checked
        // again only when either changed the record. The tenant is checked every time: it comes from the
        // credential, and a key file's tenants (the server's) are not the config loader's.
        String unfit = unfitTenant(tenant);
        if (unfit == null && (flag != null || red.record() != built)) {
            unfit = RecordRules.fieldsProblem(red.record().fields());
        }
        if (unfit != null) {
            deadLetter(
                    out,
                    tenant,
                    now,
                    new DeadLetter(
                            line,
                            Reason.SCHEMA_INVALID,
                            unfit + " once the collector flagged and redacted it",
                            rawForDeadLetter(body, off, len)));
            return null;
        }
        out.fieldCollisions(b.fieldCollisions() + red.fieldCollisions());
        return red.record();
    }

    private static String unfitTenant(CollectorConfig.Tenant tenant) {
        String bad = RecordRules.tenantProblem(tenant.id());
        return bad == null ? null : "tenant_id " + bad;
    }

    private void deadLetter(RequestOutput out, CollectorConfig.Tenant tenant, Instant now, DeadLetter d)
            throws Outlet.Unavailable {
        ObjectNode n = JSON.createObjectNode();
        n.put("reason", d.reason().name());
        n.put("detail", d.detail());
        n.put("tenant_id", tenant.id());
        n.put("line", d.line());
        n.put("observed_time", now.toString());
        if (d.raw() != null) {
            n.put("raw", d.raw());
        } else {
            n.put("raw_withheld", true);
        }
        try {
            out.deadLetter(d, JSON.writeValueAsBytes(n));
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
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

    /**
     * The raw line for the dead-letter topic: redacted whole like a message, <em>then</em> cut (a secret straddling
     * the cut must not leave its first half behind); null (withheld) when it is too long to check.
     */
    private String rawForDeadLetter(byte[] body, int off, int len) {
        // "\/" is "/" in JSON (PHP writes URLs so): unescaped first, so that URL credentials and tokens are seen.
        String raw = new String(body, off, len, StandardCharsets.UTF_8).replace("\\/", "/");
        String redacted = redactor.redactText(raw);
        if (redacted == null || redacted.length() <= MAX_DEAD_LETTER_RAW) {
            return redacted;
        }
        return redacted.substring(0, MAX_DEAD_LETTER_RAW);
    }

    private static String tooLongIdentifier(LogRecord.Builder b) {
        String[][] named = {
            {"service", b.service()},
            {"instance_id", b.instanceId()},
            {"region", b.region()},
            {"trace_id", b.traceId()},
            {"span_id", b.spanId()}
        };
        for (String[] n : named) {
            if (n[1] != null && n[1].length() > MAX_IDENTIFIER) {
                return n[0] + " is longer than " + MAX_IDENTIFIER + " characters";
            }
        }
        return null;
    }

    /** A reason fit to be stored and answered: redacted (it may quote a value), then cut short. */
    private String detail(String reason) {
        String redacted = redactor.redactText(reason);
        if (redacted == null) {
            return "[withheld]";
        }
        return redacted.length() > MAX_DETAIL ? redacted.substring(0, MAX_DETAIL) + "..." : redacted;
    }
}
