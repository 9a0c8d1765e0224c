package dev.logpipe.bench;

import java.util.Arrays;

/** Two ways of asking one question, timed in turn (A, B, A, B, …) so the box's drift falls on both alike. */
final class Interleaved {
    /** One way of asking. */
    @FunctionalInterface
    interface Ask {
        void ask() throws Exception;
    }

    /** The sorted nanosecond times of each way. */
    record Times(long[] a, long[] b) {
        double p50a() {
            return ms(a, 0.5);
        }

        double p99a() {
            return ms(a, 0.99);
        }

        double p50b() {
            return ms(b, 0.5);
        }

        double p99b() {
            return ms(b, 0.99);
        }
    }

    private Interleaved() {}

    static Times run(int runs, Ask a, Ask b) throws Exception {
        long[] ta = new long[runs];
        long[] tb = new long[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            a.ask();
            ta[i] = System.nanoTime() - t0;
            t0 = System.nanoTime();
            b.ask();
            tb[i] = System.nanoTime() - t0;
        }
        Arrays.sort(ta);
        Arrays.sort(tb);
        return new Times(ta, tb);
    }

    /** The {@code q} quantile of sorted nanoseconds, in milliseconds (p50: the middle one; p99: the ceil'd rank). */
    static double ms(long[] sorted, double q) {
        int i = q == 0.5 ? sorted.length / 2 : (int) Math.ceil(sorted.length * q) - 1;
        return sorted[i] / 1e6;
    }
}
