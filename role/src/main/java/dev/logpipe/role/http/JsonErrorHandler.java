package dev.logpipe.role.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error page of a Jetty server as JSON, never HTML: every status Jetty answers itself (a path no handler takes,
 * a URI or headers too long, a malformed request, a handler that threw, even an {@link OutOfMemoryError}) gets
 * {@code {"error":"...","reason":"..."}} with {@code Content-Type: application/json}. A 5xx never names its cause
 * (it is logged). Counted in {@code logpipe_http_errors_total{status,kind}}, {@code kind} one of {@code exception}
 * (a handler threw), {@code not_found} (no handler took the path), {@code refused} (Jetty refused the request), and
 * handed to a {@link Listener} (the query service counts and audits its paths' errors there). Every role's port
 * ({@link RolePort}) answers its errors this way. Thread-safe.
 */
public final class JsonErrorHandler extends ErrorHandler {
    private static final Logger log = LoggerFactory.getLogger(JsonErrorHandler.class);
    private static final HttpField JSON = new HttpField(HttpHeader.CONTENT_TYPE, "application/json");
    private static final HttpField NO_STORE = new HttpField(HttpHeader.CACHE_CONTROL, "no-store");
    private final MeterRegistry registry;
    private final Listener listener;
    private final String headTooLong;

    /** Told of every error answered here, after it is counted and before it is written. */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = (request, status, reason, cause) -> {};

        /** {@code request} is null for a request too broken to parse; {@code cause} null unless a handler threw. */
        void failed(Request request, int status, String reason, Throwable cause);
    }

    /**
     * @param headTooLong what a 414 or 431 says to the caller (the port's caps in the caller's terms), or null for
     *     the status's own message
     */
    public JsonErrorHandler(MeterRegistry registry, String headTooLong, Listener listener) {
        this.registry = registry;
        this.headTooLong = headTooLong;
        this.listener = listener;
        setShowStacks(false);
        setShowCauses(false);
    }

    /** Every method gets the JSON error (Jetty's default writes a body for GET, POST and HEAD only). */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        String reason = reason(code);
        boolean thrown = cause != null && !(cause instanceof HttpException);
        count(code, thrown ? "exception" : code == 404 ? "not_found" : "refused");
        if (thrown) {
            log.warn("{} {} failed with {}", request.getMethod(), Request.getPathInContext(request), code, cause);
        }
        notify(request, code, reason, thrown ? cause : null);
        response.getHeaders().put(JSON);
        response.getHeaders().put(NO_STORE);
        response.write(true, ByteBuffer.wrap(body(code, reason, messageOf(code, message))), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        count(status, "refused");
        notify(null, status, reason(status), null);
        fields.put(JSON);
        fields.put(NO_STORE);
        return ByteBuffer.wrap(body(status, reason(status), messageOf(status, reason)));
    }

    /** What the caller reads: for a request line or headers too long, the caps in the caller's terms. */
    private String messageOf(int status, String message) {
        return (status == 414 || status == 431) && headTooLong != null ? headTooLong : message;
    }

    private void notify(Request request, int status, String reason, Throwable cause) {
        try {
            listener.failed(request, status, reason, cause);
        } catch (RuntimeException e) {
            log.warn("the error listener failed: {}", e.toString());
        }
    }

    private void count(int status, String kind) {
        Counter.builder("logpipe_http_errors")
                .description("Errors answered by the server itself (not by an endpoint), by status and kind")
                .tags("status", Integer.toString(status), "kind", kind)
                .register(registry)
                .increment();
    }

    private static byte[] body(int status, String reason, String message) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        String m = status >= 500 || message == null || message.isBlank() ? HttpStatus.getMessage(status) : message;
        o.put("error", m.length() > 300 ? m.substring(0, 300) + "..." : m);
        o.put("reason", reason);
        return o.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The {@code reason} of a status, as the endpoints' own errors name theirs. */
    public static String reason(int status) {
        return switch (status) {
            case 400 -> "bad_request";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 408 -> "request_timeout";
            case 413 -> "too_large";
            case 414 -> "uri_too_long";
            case 431 -> "headers_too_large";
            case 500 -> "internal";
            case 503 -> "unavailable";
            default -> "http_" + status;
        };
    }
}
