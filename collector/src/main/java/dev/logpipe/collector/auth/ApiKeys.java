package dev.logpipe.collector.auth;

import dev.logpipe.collector.config.CollectorConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Maps an API key to its tenant. Only SHA-256 hashes are held (the configuration never contains a key), so a
 * presented key is hashed and looked up; the key itself is never logged or kept.
 */
public final class ApiKeys {
    private final Map<String, CollectorConfig.Tenant> byHash = new HashMap<>();

    public ApiKeys(List<CollectorConfig.Tenant> tenants) {
        for (CollectorConfig.Tenant t : tenants) {
            for (String h : t.apiKeySha256()) {
                byHash.put(h, t);
            }
        }
    }

    /** The tenant of an {@code Authorization} header value, or null when it is absent, malformed or unknown. */
    public CollectorConfig.Tenant authenticate(String authorization) {
        if (authorization == null || authorization.length() < 8
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String key = authorization.substring(7).strip();
        if (key.isEmpty()) {
            return null;
        }
        return byHash.get(sha256(key));
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
