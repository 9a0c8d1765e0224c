package dev.logpipe.collector.auth;

import dev.logpipe.collector.config.CollectorConfig;
import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * Key hashes (SHA-256, hex) to tenants, replaced whole while the collector runs ({@code logpipe standalone} reloads
 * its key file into one). Thread-safe: readers see one snapshot or the next, never a mix. Read-only as a map: only
 * {@link #replace} changes it.
 */
public final class KeyLookup extends AbstractMap<String, CollectorConfig.Tenant> {
    private volatile Map<String, CollectorConfig.Tenant> current = Map.of();

    /** From now on, exactly these keys authenticate. */
    public void replace(Map<String, CollectorConfig.Tenant> byHash) {
        current = Map.copyOf(byHash);
    }

    @Override
    public CollectorConfig.Tenant get(Object keyHash) {
        return keyHash == null ? null : current.get(keyHash);
    }

    @Override
    public boolean containsKey(Object keyHash) {
        return get(keyHash) != null;
    }

    @Override
    public Set<Entry<String, CollectorConfig.Tenant>> entrySet() {
        return current.entrySet();
    }
}
