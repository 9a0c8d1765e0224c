package dev.logpipe.indexer.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.auth.Credentials;
import dev.logpipe.role.http.Answer;
import dev.logpipe.role.http.JsonErrorHandler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The admin key check of the indexer's admin APIs (legal holds, archives): the key checked as every API checks a key
 * ({@link Credentials}) against SHA-256 hashes (the key itself is never stored or logged). 401 without a valid key
 * (or with two), 429 with Retry-After once the client address failed too often ({@link AuthFailures}), 403 when no
 * admin key is configured.
 */
final class AdminGate {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Who was let in ({@code admin:<first 12 hex of the key's hash>}), or the answer that refuses the request. */
    record Admitted(String who, Answer refused) {}

    private final List<String> keyHashes;
    private final AuthFailures failures;

    AdminGate(List<String> keyHashes, AuthFailures failures) {
        this.keyHashes = List.copyOf(keyHashes);
        this.failures = failures;
    }

    Admitted admit(List<String> authorizations, String remoteAddress) {
        if (keyHashes.isEmpty()) {
            return new Admitted(null, error(403, "the admin API is disabled: set admin.api_key_sha256"));
        }
        try {
            String hash = Credentials.check(
                    failures,
                    authorizations,
                    remoteAddress,
                    key -> Optional.of(sha256(key)).filter(keyHashes::contains),
                    "a valid admin key is required (Authorization: Bearer KEY)");
            return new Admitted("admin:" + hash.substring(0, 12), null);
        } catch (Credentials.Refused r) {
            ObjectNode o = JsonNodeFactory.instance.objectNode().put("error", r.getMessage());
            if (r.status() == 429) {
                o.put("reason", r.reason());
            }
            return new Admitted(null, Answer.json(r.status(), o.toString()).retryAfter(r.retryAfterSeconds()));
        }
    }

    /** A request's JSON object, or the answer that refuses it (413 too large, 400 not a JSON object). */
    record Body(JsonNode object, Answer refused) {}

    static Body jsonObject(Callable<InputStream> body, int maxBytes, String expected) throws Exception {
        JsonNode o;
        try (InputStream in = body.call()) {
            byte[] bytes = in.readNBytes(maxBytes + 1);
            if (bytes.length > maxBytes) {
                return new Body(null, error(413, "body larger than " + maxBytes + " bytes"));
            }
            o = JSON.readTree(bytes);
        } catch (IOException e) {
            return new Body(null, error(400, "body is not JSON: " + e.getMessage()));
        }
        if (o == null || !o.isObject()) {
            return new Body(null, error(400, "body must be a JSON object with " + expected));
        }
        return new Body(o, null);
    }

    static Answer error(int status, String message) {
        return Answer.error(status, JsonErrorHandler.reason(status), message);
    }

    static String sha256(String key) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
