package dev.logpipe.indexer.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.shard.TenantDirectory;
import dev.logpipe.indexer.internal.retention.LegalHold;
import dev.logpipe.indexer.internal.retention.LegalHolds;
import dev.logpipe.role.http.Answer;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code POST/GET/DELETE /api/v1/admin/legal-holds}, behind the admin key ({@link AdminGate}).
 */
public final class HoldsHandler {
    static final String PATH = "/api/v1/admin/legal-holds";
    private static final int MAX_BODY = 16 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final LegalHolds holds;
    private final AdminGate gate;

    /** @param failures the failed-authentication limit, shared with the other APIs of the port */
    public HoldsHandler(LegalHolds holds, List<String> keyHashes, AuthFailures failures) {
        this.holds = holds;
        this.gate = new AdminGate(keyHashes, failures);
    }

    /**
     * @param authorizations every {@code Authorization} header value of the request (two are refused)
     * @param remoteAddress  the client address, whose failed authentications are limited
     */
    public Answer handle(
            String method, String path, List<String> authorizations, String remoteAddress, Callable<InputStream> body)
            throws Exception {
        AdminGate.Admitted admitted = gate.admit(authorizations, remoteAddress);
        if (admitted.refused() != null) {
            return admitted.refused();
        }
        String who = admitted.who();
        try {
            if (path.equals(PATH)) {
                return switch (method) {
                    case "GET" -> Answer.json(200, list());
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
                    : Answer.json(200, hold(removed.get()).toString());
        } catch (java.io.IOException e) { // the holds' store (the OpenSearch cluster, a full disk) did not answer
            return error(503, "the legal holds cannot be read or changed now: " + e.getMessage());
        }
    }

    private String list() throws java.io.IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode a = root.putArray("holds");
        holds.list().forEach(h -> a.add(hold(h)));
        return root.toString();
    }

    private Answer create(Callable<InputStream> body, String who) throws Exception {
        AdminGate.Body read = AdminGate.jsonObject(body, MAX_BODY, "tenant_id, from, to, reason, who");
        if (read.refused() != null) {
            return read.refused();
        }
        JsonNode o = read.object();
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
            return Answer.json(201, hold(h).toString());
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

    private static Answer error(int status, String message) {
        return AdminGate.error(status, message);
    }

    /** The SHA-256 (hex) of an admin key, as {@code admin.api_key_sha256} holds it. */
    public static String sha256(String key) {
        return AdminGate.sha256(key);
    }
}
