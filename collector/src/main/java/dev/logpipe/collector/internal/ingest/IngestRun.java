package dev.logpipe.collector.internal.ingest;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.internal.admission.TenantLimits;
import dev.logpipe.record.JsonBuffer;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.function.LongPredicate;

/**
 * One request's body, read as a stream of lines and processed as it arrives: each non-blank line takes one token
 * of the tenant's records/s limit, reserves the memory it needs before it is decoded, and is accepted or
 * dead-lettered; output goes to the {@link Outlet} as it accumulates. Memory held: the decoder's window, one line,
 * the open message buffers (at most about {@link RequestOutput#FLUSH_BYTES}) and the line being processed, all
 * counted against the in-flight bound. The run stops early when the tenant's limit is reached (what was taken is
 * committed and reported) or the bound cannot grow.
 */
public final class IngestRun {
    /**
     * A line being processed holds up to about this many times its length: Jackson's tree of a line of small
     * nodes ({@code [{},{},...]}) is ~28 bytes per input byte, then the record, its strings, redaction copies.
     */
    static final int TRANSIENT_FACTOR = 32;
    /** Reservations grow in steps of this much, so that most lines need no atomic operation. */
    static final long RESERVE_STEP = 256 * 1024;

    /** How a run ended. */
    public enum Stop {
        COMPLETE,
        RATE_LIMITED,
        OVER_BOUND
    }

    /**
     * @param stoppedAtLine the first line not taken (0 when complete)
     * @param limit the limit that stopped it, for {@link Stop#RATE_LIMITED}
     */
    public record Outcome(IngestResult result, Stop stop, int stoppedAtLine, String limit) {}

    private final IngestProcessor processor;

    public IngestRun(IngestProcessor processor) {
        this.processor = processor;
    }

    /** The most one request can need at once: what the bound must allow for any request to be served. */
    public static long worstCaseBytes(CollectorConfig.Limits limits) {
        return BodyDecoder.workingBytes("zstd")
                + LineReader.CHUNK
                + limits.maxRecordBytes()
                + 1
                + (long) TRANSIENT_FACTOR * limits.maxRecordBytes()
                + RequestOutput.FLUSH_BYTES
                + IngestProcessor.MAX_ENCODED_RECORD
                + RESERVE_STEP;
    }

    /**
     * What one request may hold and take.
     *
     * @param charge     the tenant's rate limits: a record a line
     * @param fixedBytes held for the whole request (the decoder's working memory)
     * @param grow       asked before each line for the total bytes the request holds; false stops with
     *                   {@link Stop#OVER_BOUND}
     */
    public record Allowance(TenantLimits.Charge charge, long fixedBytes, LongPredicate grow) {}

    /**
     * @throws BodyException the body cannot be read (the status says why); a 429 of the bytes limit is an
     *                       {@link Outcome} instead
     */
    public Outcome run(CollectorConfig.Tenant tenant, InputStream body, Instant now, Allowance allowance, Outlet outlet)
            throws IOException, Outlet.Unavailable {
        return run(tenant, RecordLines.NDJSON, body, now, allowance, outlet);
    }

    /** {@link #run(CollectorConfig.Tenant, InputStream, Instant, Allowance, Outlet)} with the body decoded into items
     * by {@code format}. */
    public Outcome run(
            CollectorConfig.Tenant tenant,
            RecordLines.Opener format,
            InputStream body,
            Instant now,
            Allowance allowance,
            Outlet outlet)
            throws IOException, Outlet.Unavailable {
        TenantLimits.Charge charge = allowance.charge();
        long fixedBytes = allowance.fixedBytes();
        LongPredicate grow = allowance.grow();
        RequestOutput out = new RequestOutput(outlet, tenant.id());
        JsonBuffer scratch = new JsonBuffer(4 * 1024);
        IngestProcessor.Lines into = new IngestProcessor.Lines(tenant, now, scratch, out);
        Budget budget = new Budget(grow);
        // The decoder's memory grows only after its new size is reserved (with everything else the request holds).
        RecordLines lines = format.open(
                body,
                processor.limits().maxRecordBytes(),
                decoderBytes -> budget.ensure(fixedBytes + decoderBytes + out.heldBytes() + scratch.array().length));
        while (true) {
            try {
                if (!lines.next()) {
                    break;
                }
            } catch (BodyException e) {
                if (e.status() == 429) {
                    return stopped(out, Stop.RATE_LIMITED, lines.number() + 1, e.getMessage());
                }
                if (e.status() == 503) {
                    return stopped(out, Stop.OVER_BOUND, lines.number() + 1, null);
                }
                throw e;
            }
            int len = lines.length();
            long tooLong = lines.tooLong();
            if (tooLong == 0 && lines.refused() == null && blank(lines.array(), lines.offset(), len)) {
                continue;
            }
            long need = fixedBytes
                    + lines.heldBytes()
                    + out.heldBytes()
                    + scratch.array().length
                    + (long) TRANSIENT_FACTOR * len;
            if (!budget.ensure(need)) {
                return stopped(out, Stop.OVER_BOUND, lines.number(), null);
            }
            if (!charge.takeRecord()) {
                return stopped(out, Stop.RATE_LIMITED, lines.number(), charge.exhausted());
            }
            if (tooLong > 0) {
                processor.tooLong(into, tooLong, lines.number());
            } else if (lines.refused() != null) {
                processor.refused(into, lines.refused(), lines.array(), lines.offset(), len, lines.number());
            } else {
                processor.line(into, lines.array(), lines.offset(), len, lines.number());
            }
        }
        return new Outcome(out.finish(), Stop.COMPLETE, 0, null);
    }

    /** The request's reservation, grown in steps so that most lines need no atomic operation. */
    private static final class Budget {
        private final LongPredicate grow;
        private long reserved;

        Budget(LongPredicate grow) {
            this.grow = grow;
        }

        boolean ensure(long need) {
            if (need <= reserved) {
                return true;
            }
            long step = Math.max(need, reserved + RESERVE_STEP);
            if (!grow.test(step)) {
                return false;
            }
            reserved = step;
            return true;
        }
    }

    /** What was taken before the stop is committed (and reported) all the same. */
    private static Outcome stopped(RequestOutput out, Stop stop, int line, String limit) throws Outlet.Unavailable {
        return new Outcome(out.finish(), stop, line, limit);
    }

    private static boolean blank(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            if (b[i] != ' ' && b[i] != '\t') {
                return false;
            }
        }
        return true;
    }
}
