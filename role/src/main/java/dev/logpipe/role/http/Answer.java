package dev.logpipe.role.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A whole JSON answer of a role's API: status, body, and headers of its own ({@code Retry-After}, ...). Written with
 * {@code Content-Type: application/json} and {@code Cache-Control: no-store} (every answer is about live state).
 * Errors read {@code {"error":"what happened, for the caller","reason":"a stable label"}}, as
 * {@link JsonErrorHandler}'s do.
 */
public record Answer(int status, String body, Map<String, String> headers) {
    /** For endpoints building JSON trees. */
    public static final JsonNodeFactory JSON_NODES = JsonNodeFactory.instance;

    public Answer {
        headers = Map.copyOf(headers);
    }

    /** An answer without headers of its own. */
    public static Answer json(int status, String body) {
        return new Answer(status, body, Map.of());
    }

    public static Answer ok(String body) {
        return json(200, body);
    }

    /** {@code {"error":message,"reason":reason}}: {@code reason} is the stable label, {@code message} for people. */
    public static Answer error(int status, String reason, String message) {
        ObjectNode o = JSON_NODES.objectNode();
        o.put("error", message);
        o.put("reason", reason);
        return json(status, o.toString());
    }

    /** This answer with a {@code Retry-After} in seconds; 0 or less: unchanged. */
    public Answer retryAfter(long seconds) {
        return seconds > 0 ? withHeader(HttpHeader.RETRY_AFTER.asString(), Long.toString(seconds)) : this;
    }

    /** The {@code Retry-After} in seconds, 0 without one. */
    public long retryAfterSeconds() {
        String value = headers.get(HttpHeader.RETRY_AFTER.asString());
        return value == null ? 0 : Long.parseLong(value);
    }

    /** This answer with one more header (or the header replaced). */
    public Answer withHeader(String name, String value) {
        Map<String, String> more = new HashMap<>(headers);
        more.put(name, value);
        return new Answer(status, body, more);
    }

    /** Writes the whole answer and completes the callback. */
    public void write(Response response, Callback callback) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        headers.forEach(response.getHeaders()::put);
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }
}
