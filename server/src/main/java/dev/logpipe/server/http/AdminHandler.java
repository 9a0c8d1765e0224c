package dev.logpipe.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.auth.Credentials;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.role.http.Answer;
import dev.logpipe.role.http.JsonErrorHandler;
import dev.logpipe.server.keys.KeyFile;
import dev.logpipe.server.keys.KeyStore;
import dev.logpipe.server.keys.LiveKeys;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The admin API for tenants and keys, guarded by an admin key ({@code Authorization: Bearer ADMIN_KEY}; a tenant's
 * key is refused with 403; two credentials with 401; too many failures from one address with 429). {@code GET /api/v1/admin/tenants}; {@code POST /api/v1/admin/tenants/{id}/keys} (makes
 * the tenant if new, answers the key once); {@code DELETE /api/v1/admin/keys/{id}};
 * {@code PUT /api/v1/admin/tenants/{id}/limits} with {@code {"records_per_second":N,"bytes_per_second":N}}.
 */
public final class AdminHandler {
    public static final String PREFIX = "/api/v1/admin/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 4096;

    /** The query service's rules admin API ({@code /api/v1/admin/rules...}), reached through this handler's check. */
    @FunctionalInterface
    public interface RulesRoute {
        Answer handle(String method, String rest, java.util.concurrent.Callable<InputStream> body, String who);
    }

    private final KeyStore store;
    private final LiveKeys keys;
    private final AuthFailures failures;
    private final RulesRoute rules;
    private final Set<String> scrapeKeyHashes;

    /** Who presented a scrape key: it reads the recorded series and is no key of the key file. */
    private static final KeyFile.StoredKey SCRAPER =
            new KeyFile.StoredKey("scrape-key", "", "0".repeat(64), java.time.Instant.EPOCH);

    /** @param failures the failed-authentication limit, shared with the other APIs on the port */
    public AdminHandler(KeyStore store, LiveKeys keys, AuthFailures failures) {
        this(store, keys, failures, null);
    }

    /** @param rules the rules' admin API, or null when there is none (404) */
    public AdminHandler(KeyStore store, LiveKeys keys, AuthFailures failures, RulesRoute rules) {
        this(store, keys, failures, rules, Set.of());
    }

    /**
     * @param scrapeKeyHashes SHA-256 hashes of keys that pass {@link #refuseUnlessAdmin} (the recorded series) and
     *     nothing else, so a Prometheus server need not hold an admin key
     */
    public AdminHandler(
            KeyStore store, LiveKeys keys, AuthFailures failures, RulesRoute rules, Set<String> scrapeKeyHashes) {
        this.store = store;
        this.keys = keys;
        this.failures = failures;
        this.rules = rules;
        this.scrapeKeyHashes = Set.copyOf(scrapeKeyHashes);
    }

    /**
     * The key a request presents, by the check of every API ({@link Credentials}), or the refusal: 401 for none, an
     * unknown one or two, 429 with its Retry-After once {@code remoteAddress} failed too often.
     */
    private record Who(KeyFile.StoredKey key, Answer refused) {}

    private Who authenticate(List<String> authorizations, String remoteAddress, String unknown) {
        try {
            return new Who(
                    Credentials.check(failures, authorizations, remoteAddress, keys::authenticate, unknown), null);
        } catch (Credentials.Refused r) {
            return refusal(r);
        }
    }

    private static Who refusal(Credentials.Refused r) {
        ObjectNode body = JSON.createObjectNode().put("error", r.getMessage());
        if (r.status() == 429) {
            body.put("reason", r.reason());
        }
        return new Who(null, Answer.json(r.status(), body.toString()).retryAfter(r.retryAfterSeconds()));
    }

    public Answer handle(
            String method, String path, List<String> authorizations, String remoteAddress, Supplier<InputStream> body) {
        Who auth = authenticate(
                authorizations, remoteAddress, "an admin key is required (Authorization: Bearer ADMIN_KEY)");
        if (auth.refused() != null) {
            return auth.refused();
        }
        KeyFile.StoredKey who = auth.key();
        if (!who.admin()) {
            return error(403, "key " + who.id() + " is a tenant key; the admin API needs an admin key");
        }
        String sub = path.substring(PREFIX.length());
        if (rules != null && (sub.equals("rules") || sub.startsWith("rules/"))) {
            return rules.handle(method, sub.substring("rules".length()), body::get, "admin:" + who.id());
        }
        String[] parts = sub.split("/", -1);
        try {
            if (parts.length == 1 && parts[0].equals("tenants")) {
                return method.equals("GET") ? Answer.json(200, tenants().toString()) : notAllowed("GET");
            }
            if (parts.length == 1 && parts[0].equals("keys")) {
                return method.equals("GET") ? Answer.json(200, tenants().toString()) : notAllowed("GET");
            }
            if (parts.length == 3 && parts[0].equals("tenants") && parts[2].equals("keys")) {
                if (!method.equals("POST")) {
                    return notAllowed("POST");
                }
                KeyStore.Issued i = store.createKey(parts[1], null);
                keys.reload();
                ObjectNode o = JSON.createObjectNode();
                o.put("key_id", i.keyId()).put("tenant", i.tenant()).put("key", i.key());
                o.put("note", "the key is shown only now; only its SHA-256 is stored");
                return Answer.json(201, o.toString());
            }
            if (parts.length == 3 && parts[0].equals("tenants") && parts[2].equals("limits")) {
                if (!method.equals("PUT")) {
                    return notAllowed("PUT");
                }
                JsonNode b = JSON.readTree(body.get().readNBytes(MAX_BODY));
                long records = nonNegative(b, "records_per_second");
                long bytes = nonNegative(b, "bytes_per_second");
                if (!store.setLimits(parts[1], records, bytes)) {
                    return error(404, "no tenant " + parts[1]);
                }
                keys.reload();
                return Answer.json(
                        200,
                        "{\"tenant\":" + JSON.writeValueAsString(parts[1]) + ",\"records_per_second\":"
                                + records + ",\"bytes_per_second\":" + bytes
                                + ",\"note\":\"stored and in force\"}");
            }
            if (parts.length == 2 && parts[0].equals("keys")) {
                if (!method.equals("DELETE")) {
                    return notAllowed("DELETE");
                }
                if (parts[1].equals(who.id())) {
                    return error(409, "an admin key cannot revoke itself");
                }
                if (!store.revoke(parts[1])) {
                    return error(404, "no key " + parts[1]);
                }
                keys.reload();
                return Answer.json(200, "{\"revoked\":" + JSON.writeValueAsString(parts[1]) + "}");
            }
            return error(404, "not found");
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        } catch (IOException e) {
            return error(500, "key file: " + e.getMessage());
        }
    }

    /**
     * The refusal of a request that does not present an admin key (401, 403 for a tenant key, 429), or null when it
     * does: for the admin paths served elsewhere on the port ({@code /metrics/rules}).
     */
    public Answer refuseUnlessAdmin(List<String> authorizations, String remoteAddress) {
        Who auth;
        try {
            auth = new Who(
                    Credentials.check(
                            failures,
                            authorizations,
                            remoteAddress,
                            key -> scrapeKeyHashes.contains(ConfiguredKeys.sha256(key))
                                    ? Optional.of(SCRAPER)
                                    : keys.authenticate(key),
                            "an admin or scrape key is required (Authorization: Bearer KEY)"),
                    null);
        } catch (Credentials.Refused r) {
            auth = refusal(r);
        }
        if (auth.refused() != null) {
            return auth.refused();
        }
        if (auth.key() == SCRAPER) {
            return null;
        }
        if (!auth.key().admin()) {
            return error(403, "key " + auth.key().id() + " is a tenant key; this path needs an admin key");
        }
        return null;
    }

    /**
     * {@code GET /api/v1/whoami}: which tenant a key belongs to ({@code {"tenant":..,"key_id":..}}), or that it is an
     * admin key ({@code {"admin":true,"key_id":..}}: the UI opens its admin view), for the UI's sign-in; 401 for an
     * unknown key.
     */
    public Answer whoami(List<String> authorizations, String remoteAddress) {
        Who auth = authenticate(authorizations, remoteAddress, "unknown API key");
        if (auth.refused() != null) {
            return auth.refused();
        }
        KeyFile.StoredKey who = auth.key();
        if (who.admin()) {
            return Answer.json(
                    200,
                    JSON.createObjectNode()
                            .put("admin", true)
                            .put("key_id", who.id())
                            .toString());
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("tenant", who.tenant()).put("key_id", who.id());
        return Answer.json(200, o.toString());
    }

    private ObjectNode tenants() {
        KeyFile f = keys.current();
        ObjectNode root = JSON.createObjectNode();
        ArrayNode ts = root.putArray("tenants");
        for (KeyFile.Tenant t : f.tenants().values()) {
            ObjectNode o = ts.addObject();
            o.put("id", t.id()).put("created", t.created().toString());
            o.put("records_per_second", t.recordsPerSecond()).put("bytes_per_second", t.bytesPerSecond());
            ArrayNode ks = o.putArray("key_ids");
            f.keys().stream().filter(k -> t.id().equals(k.tenant())).forEach(k -> ks.add(k.id()));
        }
        ArrayNode admins = root.putArray("admin_key_ids");
        f.keys().stream().filter(KeyFile.StoredKey::admin).forEach(k -> admins.add(k.id()));
        return root;
    }

    private static long nonNegative(JsonNode b, String field) {
        JsonNode v = b == null ? null : b.get(field);
        if (v == null || !v.canConvertToLong() || v.asLong() < 0) {
            throw new IllegalArgumentException(field + ": must be a number >= 0 (0 = unlimited)");
        }
        return v.asLong();
    }

    private static Answer notAllowed(String method) {
        return error(405, "use " + method);
    }

    private static Answer error(int status, String message) {
        return Answer.error(status, JsonErrorHandler.reason(status), message);
    }
}
