package dev.logpipe.query.internal.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/** An HTTP answer: status, JSON body, extra headers; and the refusal the handler turns into one. */
public record Answer(int status, String body, Map<String, String> headers) {
    static final ObjectMapper JSON = new ObjectMapper();
    /** For endpoints building JSON trees. */
    public static final JsonNodeFactory JSON_NODES = JsonNodeFactory.instance;

    public Answer {
        headers = Map.copyOf(headers);
    }

    public static Answer ok(String body) {
        return new Answer(200, body, Map.of());
    }

    public static Answer error(int status, String reason, String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("error", message);
        o.put("reason", reason);
        return new Answer(status, o.toString(), Map.of());
    }

    /** A request refused with a 4xx: {@code reason} is the metric and audit label, {@code message} for the caller. */
    public static final class Refusal extends RuntimeException {
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
            ObjectNode o = JSON.createObjectNode();
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
}
