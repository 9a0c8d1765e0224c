package dev.logpipe.indexer.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.auth.Credentials;
import dev.logpipe.index.shard.TenantDirectory;
import dev.logpipe.indexer.internal.retention.LegalHold;
import dev.logpipe.indexer.internal.retention.LegalHolds;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code POST/GET/DELETE /api/v1/admin/legal-holds}: the admin key checked as every API checks a key
 * ({@link Credentials}) against SHA-256 hashes (the key itself is never stored or logged). 401 without a valid key
 * (or with two), 429 with Retry-After once the client address failed too often ({@link AuthFailures}), 403 when no
 * admin key is configured.
 */
public final class HoldsHandler {
    static final String PATH = "/api/v1/admin/legal-holds";
    private static final int MAX_BODY = 16 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final LegalHolds holds;
    private final List<String> keyHashes;
    private final AuthFailures failures;

    /** @param failures the failed-authentication limit, shared with the other APIs of the port */
    public HoldsHandler(LegalHolds holds, List<String> keyHashes, AuthFailures failures) {
        this.holds = holds;
        this.keyHashes = List.copyOf(keyHashes);
        this.failures = failures;
    }

    /**
     * @param authorizations every {@code Authorization} header value of the request (two are refused)
     * @param remoteAddress  the client address, whose failed authentications are limited
     */
    public IndexerServer.Answer handle(
            String method, String path, List<String> authorizations, String remoteAddress, Callable<InputStream> body)
            throws Exception {
        if (keyHashes.isEmpty()) {
            return error(403, "the admin API is disabled: set admin.api_key_sha256");
        }
        String hash;
        try {
            hash = Credentials.check(
                    failures,
                    authorizations,
                    remoteAddress,
                    key -> Optional.of(sha256(key)).filter(keyHashes::contains),
                    "a valid admin key is required (Authorization: Bearer KEY)");
        } catch (Credentials.Refused r) {
            ObjectNode o = JSON.createObjectNode().put("error", r.getMessage());
            if (r.status() == 429) {
                o.put("reason", r.reason());
            }
            return new IndexerServer.Answer(r.status(), o.toString(), r.retryAfterSeconds());
        }
        String who = "admin:" + hash.substring(0, 12);
        if (path.equals(PATH)) {
            return switch (method) {
                case "GET" -> new IndexerServer.Answer(200, list());
                case "POST" -> create(body, who);
                default -> error(405, "use GET or POST");
            };
        }
        String id = path.substring(PATH.length() + 1);
        if (!method.equals("DELETE")) {
            return error(405, "use DELETE");
        }
        Optional<LegalHold> removed = holds.remove(id, who);
        return removed.isEmpty()
                ? error(404, "no legal hold " + id)
                : new IndexerServer.Answer(200, hold(removed.get()).toString());
    }

    private String list() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode a = root.putArray("holds");
        holds.list().forEach(h -> a.add(hold(h)));
        return root.toString();
    }

    private IndexerServer.Answer create(Callable<InputStream> body, String who) throws Exception {
        JsonNode o;
        try (InputStream in = body.call()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                return error(413, "body larger than " + MAX_BODY + " bytes");
            }
            o = JSON.readTree(bytes);
        } catch (IOException e) {
            return error(400, "body is not JSON: " + e.getMessage());
        }
        if (o == null || !o.isObject()) {
            return error(400, "body must be a JSON object with tenant_id, from, to, reason, who");
        }
        String tenant = o.path("tenant_id").asText(null);
        String problem = TenantDirectory.problem(tenant);
        if (problem != null) {
            return error(400, "tenant_id " + problem);
        }
        Instant from;
        Instant to;
        try {
            from = Instant.parse(o.path("from").asText(""));
            to = Instant.parse(o.path("to").asText(""));
        } catch (RuntimeException e) {
            return error(400, "from and to must be RFC 3339 times like 2026-12-01T00:00:00Z");
        }
        try {
            LegalHold h = holds.add(
                    tenant,
                    from,
                    to,
                    o.path("reason").asText(null),
                    o.path("who").isTextual() ? o.get("who").textValue() + " (" + who + ")" : null);
            return new IndexerServer.Answer(201, hold(h).toString());
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
    }

    private static ObjectNode hold(LegalHold h) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", h.id());
        o.put("tenant_id", h.tenant());
        o.put("from", h.from().toString());
        o.put("to", h.to().toString());
        o.put("reason", h.reason());
        o.put("who", h.who());
        o.put("created", h.created().toString());
        return o;
    }

    private static IndexerServer.Answer error(int status, String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("error", message);
        return new IndexerServer.Answer(status, o.toString());
    }

    public static String sha256(String key) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
