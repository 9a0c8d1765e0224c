package dev.logpipe.collector.auth;

import dev.logpipe.collector.config.CollectorConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Maps a credential to its tenant: a client certificate's subject (mTLS; invariant I4, docs/architecture.md) or an API key. Only SHA-256 hashes are held (the configuration never contains a key), so a
 * presented key is hashed and looked up; the key itself is never logged or kept.
 */
public final class ApiKeys {
    private final Map<String, CollectorConfig.Tenant> byHash;
    private final Map<String, CollectorConfig.Tenant> bySubject = new HashMap<>();

    public ApiKeys(List<CollectorConfig.Tenant> tenants) {
        this(tenants, new HashMap<>());
    }

    /**
     * Keys that may change while the collector runs: {@code liveByHash} maps the SHA-256 (hex) of a key to its
     * tenant and is read on every request (a thread-safe map its owner updates, e.g. {@link KeyLookup}); the
     * configured {@code tenants}' keys are put into it (none with a read-only {@link KeyLookup}).
     */
    public ApiKeys(List<CollectorConfig.Tenant> tenants, Map<String, CollectorConfig.Tenant> liveByHash) {
        this.byHash = liveByHash;
        for (CollectorConfig.Tenant t : tenants) {
            for (String h : t.apiKeySha256()) {
                byHash.put(h, t);
            }
            for (String s : t.certSubjects()) {
                bySubject.put(s, t);
            }
        }
    }

    /**
     * The tenant of a verified client certificate's subject (canonical RFC 2253 form) when it maps to one, else of
     * the {@code Authorization} header; null when neither identifies a tenant.
     */
    public CollectorConfig.Tenant authenticate(String authorization, String certificateSubject) {
        if (certificateSubject != null) {
            CollectorConfig.Tenant t = bySubject.get(certificateSubject);
            if (t != null) {
                return t;
            }
        }
        return authenticate(authorization);
    }

    /**
     * The tenant of an {@code Authorization} header value, or null when it is absent, malformed or unknown:
     * {@code Bearer <key>}, or {@code Basic base64(user:key)} with the key as the password and any user name (for
     * shippers that only do basic auth: Filebeat, Logstash, Fluent Bit's es output, Vector, Promtail).
     */
    public CollectorConfig.Tenant authenticate(String authorization) {
        String key = presentedKey(authorization);
        if (key == null || key.isEmpty()) {
            return null;
        }
        return byHash.get(sha256(key));
    }

    /** The key an {@code Authorization} value presents, or null when it is neither Bearer nor valid Basic. */
    static String presentedKey(String authorization) {
        if (authorization == null || authorization.length() < 7) {
            return null;
        }
        if (authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return authorization.substring(7).strip();
        }
        if (authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            byte[] decoded;
            try {
                decoded = Base64.getDecoder().decode(authorization.substring(6).strip());
            } catch (IllegalArgumentException e) {
                return null;
            }
            String pair = new String(decoded, StandardCharsets.UTF_8);
            int colon = pair.indexOf(':');
            return colon < 0 ? null : pair.substring(colon + 1);
        }
        return null;
    }

    public static String sha256(String key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
