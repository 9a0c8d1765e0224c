package dev.logpipe.query.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * API keys from the configuration, held only as SHA-256 hashes: a presented {@code Bearer} key is hashed and looked
 * up. The credential id is {@code key:} and the first 12 hex digits of the hash, so an audit line names which key
 * asked without holding anything that opens the door.
 */
public final class ConfiguredKeys implements Authenticator {
    private final Map<String, String> tenantByHash = new HashMap<>();

    /** @param keys tenant id to its keys' hex SHA-256 hashes */
    public ConfiguredKeys(Map<String, List<String>> keys) {
        keys.forEach((tenant, hashes) -> hashes.forEach(h -> tenantByHash.put(h, tenant)));
    }

    @Override
    public Optional<Credential> authenticate(String key) {
        if (key == null || key.isEmpty()) {
            return Optional.empty();
        }
        String hash = sha256(key);
        String tenant = tenantByHash.get(hash);
        return tenant == null ? Optional.empty() : Optional.of(new Credential(tenant, "key:" + hash.substring(0, 12)));
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
