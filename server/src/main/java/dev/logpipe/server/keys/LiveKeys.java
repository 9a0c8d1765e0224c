package dev.logpipe.server.keys;

import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.auth.KeyLookup;
import dev.logpipe.collector.config.CollectorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key file as a running standalone sees it: read at start, then re-read every {@code poll} (and at once after
 * the admin API changed it), so {@code logpipe keys create|revoke} take effect within a poll without a restart.
 * A file that became corrupt keeps the last good keys in force and is logged and counted until it is fixed.
 * Owns one daemon thread; {@link #close} is idempotent.
 */
public final class LiveKeys implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LiveKeys.class);

    private final KeyStore store;
    private final KeyLookup collectorKeys = new KeyLookup();
    private final AtomicLong reloadFailures = new AtomicLong();
    private volatile KeyFile current;
    private volatile Map<String, KeyFile.StoredKey> byHash = Map.of();
    private byte[] lastBytes = new byte[0];
    /** Keys of this process only (the demo forwarder's), never written to the key file. */
    private final Map<String, KeyFile.StoredKey> internal = new ConcurrentHashMap<>();

    private ScheduledExecutorService poller;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    public LiveKeys(KeyStore store) {
        this.store = store;
    }

    /** Reads the file (a corrupt one is an IOException naming it) and starts polling. */
    public synchronized LiveKeys start(Duration poll) throws IOException {
        if (!reload()) {
            throw new IOException("cannot read " + store.file());
        }
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "standalone-key-reload");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(this::poll, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void poll() {
        try {
            reload();
        } catch (IOException e) {
            if (reloadFailures.getAndIncrement() % 60 == 0) {
                log.error("{}; the keys read before stay in force", e.getMessage());
            }
        } catch (RuntimeException e) {
            reloadFailures.incrementAndGet();
            log.error("reloading {} failed; the keys read before stay in force", store.file(), e);
        }
    }

    /** Re-reads the file now; true when it was read (changed or not). */
    public synchronized boolean reload() throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(store.file());
        } catch (NoSuchFileException e) {
            bytes = new byte[0];
        }
        if (current != null && Arrays.equals(bytes, lastBytes)) {
            return true;
        }
        apply(store.read(), bytes);
        return true;
    }

    /**
     * A key for {@code tenant} that only this process knows (the in-process demo forwarder's): not in the key file,
     * gone at exit. The tenant must exist in the key file.
     */
    public synchronized String issueInternalKey(String tenant, String id) {
        if (current == null || !current.tenants().containsKey(tenant)) {
            throw new IllegalArgumentException("no tenant " + tenant + " in " + store.file());
        }
        byte[] b = new byte[24];
        new SecureRandom().nextBytes(b);
        String key = "lpi_" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        String h = ApiKeys.sha256(key);
        internal.put(h, new KeyFile.StoredKey(id, tenant, h, Instant.now()));
        apply(current, lastBytes);
        return key;
    }

    private void apply(KeyFile f, byte[] bytes) {
        List<KeyFile.StoredKey> all = new ArrayList<>(f.keys());
        all.addAll(internal.values());
        Map<String, KeyFile.StoredKey> hashes = new HashMap<>();
        Map<String, List<String>> tenantHashes = new HashMap<>();
        for (KeyFile.StoredKey k : all) {
            hashes.put(k.sha256(), k);
            if (!k.admin()) {
                tenantHashes.computeIfAbsent(k.tenant(), t -> new ArrayList<>()).add(k.sha256());
            }
        }
        Map<String, CollectorConfig.Tenant> collector = new HashMap<>();
        for (KeyFile.Tenant t : f.tenants().values()) {
            CollectorConfig.Tenant ct = collectorTenant(t, tenantHashes.getOrDefault(t.id(), List.of()));
            for (String h : ct.apiKeySha256()) {
                collector.put(h, ct);
            }
        }
        byHash = Map.copyOf(hashes);
        collectorKeys.replace(collector);
        boolean first = current == null;
        byte[] lastBytesBefore = lastBytes;
        current = f;
        lastBytes = bytes;
        if (!first && bytes != lastBytesBefore) {
            log.info(
                    "keys reloaded from {}: {} tenants, {} keys",
                    store.file(),
                    f.tenants().size(),
                    f.keys().size());
        }
        if (!first) {
            listeners.forEach(Runnable::run);
        }
    }

    /** Runs {@code r} after every reload that changed something (on the reloading thread). */
    public void onChange(Runnable r) {
        listeners.add(r);
    }

    /** The collector's view of a tenant: its keys and ingest limits (burst one second). */
    public static CollectorConfig.Tenant collectorTenant(KeyFile.Tenant t, List<String> hashes) {
        return new CollectorConfig.Tenant(
                t.id(), hashes, List.of(), t.recordsPerSecond(), t.bytesPerSecond(), Duration.ofSeconds(1), 0);
    }

    /** Key hashes to tenants, for the collector's {@link ApiKeys}; follows every reload. */
    public KeyLookup collectorKeys() {
        return collectorKeys;
    }

    public KeyFile current() {
        return current;
    }

    /** The stored key a presented key is, if it is one (tenant or admin). */
    public Optional<KeyFile.StoredKey> authenticate(String key) {
        if (key == null || key.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable(byHash.get(ApiKeys.sha256(key)));
    }

    /** The key of an {@code Authorization: Bearer KEY} header value, or null. */
    public static String bearer(String authorization) {
        if (authorization == null
                || authorization.length() < 8
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String key = authorization.substring(7).strip();
        return key.isEmpty() ? null : key;
    }

    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
            poller = null;
        }
    }
}
