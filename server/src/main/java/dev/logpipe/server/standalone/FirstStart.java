package dev.logpipe.server.standalone;

import dev.logpipe.server.keys.KeyFile;
import dev.logpipe.server.keys.KeyStore;
import java.io.IOException;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The keys a first start makes: tenant {@code default} with an API key ({@code LOGPIPE_API_KEY} when set) and an
 * admin key ({@code LOGPIPE_ADMIN_KEY} when set). {@link #banner} shows a key made here once; a key the operator
 * supplied is never printed (the banner says which variable it was taken from). Only hashes are stored.
 */
public record FirstStart(KeyStore.Issued tenantKey, KeyStore.Issued adminKey) {
    public static final String API_KEY_ENV = "LOGPIPE_API_KEY";
    public static final String ADMIN_KEY_ENV = "LOGPIPE_ADMIN_KEY";

    /** Makes what is missing; null when the data directory already had a tenant and an admin key. */
    static FirstStart ensureKeys(KeyStore store, Map<String, String> env) throws IOException {
        if (store.restrictToOwner()) {
            LoggerFactory.getLogger(FirstStart.class)
                    .warn("{} was readable by others (made by an older logpipe); now rw-------", store.file());
        }
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

    /**
     * What a first start prints: keys made here (never a supplied one), URLs, a curl that ingests one line, a
     * forwarder config for ./logs/*.log.
     */
    public String banner(String baseUrl) {
        StringBuilder b = new StringBuilder();
        b.append("\n=== logpipe standalone: first start ===\n");
        if (tenantKey != null) {
            b.append("tenant ").append(tenantKey.tenant()).append(" API key ");
            shown(b, tenantKey, API_KEY_ENV);
        }
        if (adminKey != null) {
            b.append("admin key ");
            shown(b, adminKey, ADMIN_KEY_ENV);
        }
        String key = tenantKey == null || tenantKey.origin() == KeyStore.Origin.SUPPLIED
                ? "$" + API_KEY_ENV
                : tenantKey.key();
        b.append("\nweb UI:   ").append(baseUrl).append("/   (sign in with the API key)\n");
        b.append("ingest:   POST ")
                .append(baseUrl)
                .append("/api/v1/logs   search: GET ")
                .append(baseUrl)
                .append("/api/v1/search?q=...\n");
        // a variable is quoted "…" so the shell expands it; a key made here is pasted '…'
        String header =
                key.startsWith("$") ? "\"Authorization: Bearer " + key + "\"" : "'Authorization: Bearer " + key + "'";
        b.append("\nsend a line:\n  curl -sS -H ")
                .append(header)
                .append(" --data-binary ")
                .append("'{\"message\":\"hello from curl\",\"level\":\"INFO\",\"service\":\"shell\"}' ")
                .append(baseUrl)
                .append("/api/v1/logs\n");
        b.append("\nship ./logs/*.log with log-forwarder (save as forwarder.yaml, then\n  ");
        if (!key.startsWith("$")) {
            b.append(API_KEY_ENV).append('=').append(key).append(' ');
        }
        b.append("bin/log-forwarder -config forwarder.yaml):\n");
        b.append(forwarderConfig(baseUrl).indent(2));
        b.append("=======================================\n");
        return b.toString();
    }

    /**
     * The {@code log-forwarder} config the banner prints for {@code ./logs/*.log}: lines that start with a date and a
     * time ({@code 2026-12-01 08:00:02,017 ERROR ...}) get their event time and level from the line, and a
     * {@code service} to search them by (FirstStartTest loads it with the forwarder's own config loader).
     */
    static String forwarderConfig(String baseUrl) {
        return """
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
                  add_fields:
                    service: my-app   # what the records are searched by: service:my-app
                  extract:
                    pattern: '^(?P<ts>\\S+ \\S+) (?P<level>[A-Z]+) '
                  event_time:
                    field: ts
                    layout: log4j     # 2026-12-01 08:00:02,017 (or .017), in UTC unless zone: is set
                sink:
                  type: http
                  http:
                    url: %s/api/v1/logs
                    token_env: LOGPIPE_API_KEY
                """.formatted(baseUrl);
    }

    private static void shown(StringBuilder b, KeyStore.Issued k, String env) {
        if (k.origin() == KeyStore.Origin.SUPPLIED) {
            b.append("(key id ")
                    .append(k.keyId())
                    .append("): taken from ")
                    .append(env)
                    .append(", not shown; stored hashed\n");
        } else {
            b.append("(shown only now, stored hashed; key id ")
                    .append(k.keyId())
                    .append("):\n    ")
                    .append(k.key())
                    .append('\n');
        }
    }
}
