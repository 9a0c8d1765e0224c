package dev.logpipe.bench;

import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.time.Instant;
import java.util.Random;

/**
 * The query benchmarks' records, the same on every run (seed 42): {@code n} records of one tenant spread evenly over
 * the 10 days before {@link QueryBench#NOW} (oldest first), 8 services, 16 instances, 1 in 50 {@code ERROR}, two
 * numeric fields, a ten-word message with an order id; 12 of them hold the needle token {@value #NEEDLE}. Not
 * thread-safe: one sequence, read once.
 */
final class QueryRecords {
    static final String NEEDLE = "zqxneedle";
    static final long SPAN_MS = 10L * 86_400_000L;

    private static final String[] SERVICES = {
        "api", "billing", "auth", "search", "checkout", "gateway", "worker", "cron"
    };
    private static final String[] WORDS = {
        "request",
        "completed",
        "timeout",
        "user",
        "order",
        "payment",
        "cache",
        "miss",
        "retry",
        "connection",
        "reset",
        "upstream",
        "latency",
        "queue",
        "flush",
        "session"
    };

    private final long n;
    private final long start;
    private final long span;
    private final long needleEvery;
    private final Random rnd = new Random(42);
    private long i;

    QueryRecords(long n) {
        this(n, QueryBench.NOW, SPAN_MS);
    }

    /** The same records spread evenly over the {@code spanMs} before {@code end} instead. */
    QueryRecords(long n, Instant end, long spanMs) {
        this.start = end.toEpochMilli() - spanMs;
        this.span = spanMs;
        if (n < 12) {
            throw new IllegalArgumentException("need at least 12 records (12 needles), was " + n);
        }
        this.n = n;
        this.needleEvery = n / 12;
    }

    boolean hasNext() {
        return i < n;
    }

    /** The next record; its event time is its observed time. */
    LogRecord next() {
        if (i >= n) {
            throw new IllegalStateException("all " + n + " records were read");
        }
        Instant t = Instant.ofEpochMilli(start + i * span / n);
        StringBuilder m = new StringBuilder();
        for (int w = 0; w < 8; w++) {
            m.append(WORDS[rnd.nextInt(WORDS.length)]).append(' ');
        }
        m.append("order_id=CO-")
                .append(rnd.nextInt(1_000_000))
                .append(" took_ms=")
                .append(rnd.nextInt(2000));
        if (i % needleEvery == needleEvery / 2 && i / needleEvery < 12) {
            m.append(' ').append(NEEDLE);
        }
        LogRecord r = LogRecord.builder(m.toString())
                .recordId(Long.toHexString(i * 0x9E3779B97F4A7C15L))
                .tenantId("bench")
                .eventTime(t)
                .observedTime(t)
                .service(SERVICES[(int) (i % SERVICES.length)])
                .instanceId("host-" + (i % 16))
                .region("eu-west-1")
                .level(i % 50 == 0 ? Level.ERROR : i % 7 == 0 ? Level.WARN : Level.INFO)
                .field("took_ms", rnd.nextInt(2000))
                .field("http.status", 200)
                .build();
        i++;
        return r;
    }
}
