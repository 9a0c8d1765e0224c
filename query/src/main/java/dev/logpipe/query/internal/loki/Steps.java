package dev.logpipe.query.internal.loki;

/**
 * The evaluation times of a metric query, in epoch milliseconds: {@code start}, {@code start + step}, ... up to
 * {@code end} (one time for an instant query). A range function at time T looks at the records in (T - range, T].
 */
record Steps(long startMillis, long stepMillis, int count) {
    static final int MAX = 11_000;

    long at(int i) {
        return startMillis + i * stepMillis;
    }

    long endMillis() {
        return at(count - 1);
    }

    /** The first step whose window (T - range, T] holds time {@code t}, or {@code count} when none does. */
    int first(long t) {
        if (t <= startMillis) {
            return 0;
        }
        long k = Math.floorDiv(t - startMillis + stepMillis - 1, stepMillis);
        return (int) Math.min(count, k);
    }

    /** The last step whose window holds {@code t} (negative when none does). */
    int last(long t, long rangeMillis) {
        long k = Math.floorDiv(t + rangeMillis - 1 - startMillis, stepMillis);
        return (int) Math.max(-1, Math.min(count - 1, k));
    }
}
