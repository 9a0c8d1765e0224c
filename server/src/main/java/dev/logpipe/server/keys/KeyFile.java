package dev.logpipe.server.keys;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What {@code keys.json} in the data directory holds: tenants (with their ingest limits) and API keys, each key only
 * as its SHA-256. A key with no tenant is an admin key. Immutable; {@link KeyStore} writes new versions atomically.
 */
public record KeyFile(Map<String, Tenant> tenants, List<StoredKey> keys) {
    public static final KeyFile EMPTY = new KeyFile(Map.of(), List.of());

    public KeyFile {
        tenants = Map.copyOf(tenants);
        keys = List.copyOf(keys);
    }

    /** A tenant; 0 means unlimited. */
    public record Tenant(String id, Instant created, long recordsPerSecond, long bytesPerSecond) {
        public Tenant {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(created, "created");
            if (recordsPerSecond < 0 || bytesPerSecond < 0) {
                throw new IllegalArgumentException("limits must be >= 0 (0 = unlimited), were " + recordsPerSecond
                        + " records/s, " + bytesPerSecond + " bytes/s");
            }
        }

        public Tenant withLimits(long records, long bytes) {
            return new Tenant(id, created, records, bytes);
        }
    }

    /** One key: its public id (safe to show and log), its tenant (null: an admin key), its SHA-256 in hex. */
    public record StoredKey(String id, String tenant, String sha256, Instant created) {
        public StoredKey {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(sha256, "sha256");
            Objects.requireNonNull(created, "created");
            if (!sha256.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("sha256 of key " + id + ": must be 64 lower-case hex digits");
            }
        }

        public boolean admin() {
            return tenant == null;
        }
    }

    public KeyFile withTenant(Tenant t) {
        Map<String, Tenant> copy = new TreeMap<>(tenants);
        copy.put(t.id(), t);
        return new KeyFile(copy, keys);
    }

    public KeyFile withKey(StoredKey k) {
        List<StoredKey> copy = new ArrayList<>(keys);
        copy.add(k);
        return new KeyFile(tenants, copy);
    }

    public KeyFile withoutKey(String keyId) {
        return new KeyFile(
                tenants, keys.stream().filter(k -> !k.id().equals(keyId)).toList());
    }

    public boolean hasAdminKey() {
        return keys.stream().anyMatch(StoredKey::admin);
    }
}
