package dev.logpipe.query.internal.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.role.http.Answer;
import java.util.Map;

/**
 * A request refused with a 4xx (or a 503), thrown by an endpoint and turned into its {@link Answer} by the request
 * flow: {@code reason} is the metric and audit label, the message is for the caller.
 */
public final class Refusal extends RuntimeException {
    private final int status;
    private final String reason;
    private final transient ObjectNode extra;
    private final long retryAfterSeconds;

    public Refusal(int status, String reason, String message) {
        this(status, reason, message, null);
    }

    public Refusal(int status, String reason, String message, ObjectNode extra) {
        this(status, reason, message, extra, 1);
    }

    /** @param retryAfterSeconds the Retry-After of a 429 */
    public Refusal(int status, String reason, String message, ObjectNode extra, long retryAfterSeconds) {
        super(message, null, false, false);
        this.status = status;
        this.reason = reason;
        this.extra = extra;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    /** The Retry-After of a 429 or 503, in seconds. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public Answer answer() {
        ObjectNode o = Answer.JSON_NODES.objectNode();
        o.put("error", getMessage());
        o.put("reason", reason);
        if (extra != null) {
            o.setAll(extra);
        }
        Map<String, String> h =
                status == 429 || status == 503 ? Map.of("Retry-After", Long.toString(retryAfterSeconds)) : Map.of();
        return new Answer(status, o.toString(), h);
    }
}
