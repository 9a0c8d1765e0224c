package dev.logpipe.forwarder.e2e;

import java.util.stream.IntStream;

/** Numbered line texts, so a test can state exactly which lines it expects. */
final class Lines {
    private Lines() {}

    /** {@code line-001 .. line-NNN} for {@code from..to} inclusive, padded with {@code payload}. */
    static String[] numbered(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(Lines::numbered).toArray(String[]::new);
    }

    static String numbered(int n) {
        return String.format("line-%03d the quick brown fox jumps over the lazy dog", n);
    }
}
