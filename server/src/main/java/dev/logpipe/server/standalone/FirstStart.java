package dev.logpipe.server.standalone;

import dev.logpipe.server.keys.KeyFile;
import dev.logpipe.server.keys.KeyStore;
import java.io.IOException;
import java.util.Map;

/**
 * The keys a first start makes: tenant {@code default} with an API key ({@code LOGPIPE_API_KEY} when set) and an
 * admin key ({@code LOGPIPE_ADMIN_KEY} when set). Both are shown once by {@link #banner}; only hashes are stored.
 */
public record FirstStart(KeyStore.Issued tenantKey, KeyStore.Issued adminKey) {
    public static final String API_KEY_ENV = "LOGPIPE_API_KEY";
    public static final String ADMIN_KEY_ENV = "LOGPIPE_ADMIN_KEY";

    /** Makes what is missing; null when the data directory already had a tenant and an admin key. */
    static FirstStart ensureKeys(KeyStore store, Map<String, String> env) throws IOException {
        KeyFile f = store.read();
        KeyStore.Issued tenant = null;
        KeyStore.Issued admin = null;
        if (f.tenants().isEmpty()) {
            tenant = store.createKey("default", blankToNull(env.get(API_KEY_ENV)));
        }
        if (!f.hasAdminKey()) {
            admin = store.createAdminKey(blankToNull(env.get(ADMIN_KEY_ENV)));
        }
        return tenant == null && admin == null ? null : new FirstStart(tenant, admin);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** What a first start prints: keys, URLs, a curl that ingests one line, a forwarder config for ./logs/*.log. */
    public String banner(String baseUrl) {
        StringBuilder b = new StringBuilder();
        b.append("\n=== logpipe standalone: first start ===\n");
        if (tenantKey != null) {
            b.append("tenant ")
                    .append(tenantKey.tenant())
                    .append(" API key (shown only now, stored hashed; key id ")
                    .append(tenantKey.keyId())
                    .append("):\n    ")
                    .append(tenantKey.key())
                    .append('\n');
        }
        if (adminKey != null) {
            b.append("admin key (shown only now; key id ")
                    .append(adminKey.keyId())
                    .append("):\n    ")
                    .append(adminKey.key())
                    .append('\n');
        }
        String key = tenantKey == null ? "$LOGPIPE_API_KEY" : tenantKey.key();
        b.append("\nweb UI:   ").append(baseUrl).append("/   (sign in with the API key)\n");
        b.append("ingest:   POST ")
                .append(baseUrl)
                .append("/api/v1/logs   search: GET ")
                .append(baseUrl)
                .append("/api/v1/search?q=...\n");
        b.append("\nsend a line:\n  curl -sS -H 'Authorization: Bearer ")
                .append(key)
                .append("' --data-binary ")
                .append("'{\"message\":\"hello from curl\",\"level\":\"INFO\",\"service\":\"shell\"}' ")
                .append(baseUrl)
                .append("/api/v1/logs\n");
        b.append("\nship ./logs/*.log with log-forwarder (save as forwarder.yaml, then\n")
                .append("  LOGPIPE_API_KEY=")
                .append(key)
                .append(" bin/log-forwarder -config forwarder.yaml):\n");
        b.append("""
                watch:
                  state:
                    path: ./.log-forwarder/standalone-watermarks.json
                  sources:
                    - path: ./logs
                      patterns: ["*.log"]
                parser:
                  type: multiline
                  multiline:
                    header_pattern: '^\\d{4}-\\d{2}-\\d{2}'
                transform:
                  extract:
                    pattern: '^\\S+ \\S+ (?P<level>[A-Z]+) '
                sink:
                  type: http
                  http:
                    url: %s/api/v1/logs
                    token_env: LOGPIPE_API_KEY
                """.formatted(baseUrl).indent(2));
        b.append("=======================================\n");
        return b.toString();
    }
}
