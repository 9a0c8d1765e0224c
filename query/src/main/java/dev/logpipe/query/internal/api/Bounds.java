package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.search.SourceReader;
import java.time.Duration;

/**
 * What one request may spend: its deadline ({@link System#nanoTime()} based, fixed from the request's arrival, so
 * time spent queued for a thread counts) and its lease on the memory for answers, given back once it is written.
 */
public record Bounds(long deadlineNanos, AnswerMemory.Lease memory) {
    /** True once the deadline has passed. */
    public boolean expired() {
        return System.nanoTime() - deadlineNanos > 0;
    }

    /** The request's deadline passed before its answer had a record: a 503 (nothing partial to show). */
    public static Refusal timedOut(Duration timeout) {
        return new Refusal(
                503,
                "query_timeout",
                "the query did not finish within limits.query_timeout (" + timeout.toMillis() + " ms, counted from "
                        + "the request's arrival); retry, or narrow the range or the query");
    }

    /**
     * Writes {@code cut} (why an answer holds fewer records than were found, and how many it left out) and counts
     * it: {@code max_answer_bytes} (the records found did not fit in one answer), {@code answer_memory} (the memory
     * for answers in flight had no room for more) or {@code timeout}; with {@code limits.max_answer_bytes}.
     */
    static void describeCut(
            ObjectNode root, SourceReader.Cut cut, int leftOutBefore, int leftOutAfter, Env env, Call call) {
        long maxBytes = env.config().limits().maxAnswerBytes();
        String reason = switch (cut) {
            case TIMEOUT -> "timeout";
            case ANSWER_MEMORY -> "answer_memory";
            case MAX_ANSWER_BYTES -> "max_answer_bytes";
        };
        ObjectNode c = root.putObject("cut");
        c.put("reason", reason);
        if (call.endpoint().equals("context")) {
            c.put("before_left_out", leftOutBefore);
            c.put("after_left_out", leftOutAfter);
        } else {
            c.put("hits_left_out", leftOutBefore);
        }
        c.put("max_answer_bytes", maxBytes);
        call.audit().put("cut", reason);
        env.metrics().cut(call.endpoint(), reason);
    }
}
