package dev.logpipe.server.keys;

import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.config.files.AtomicFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.UnaryOperator;

/**
 * The tenants and API keys of one data directory, in {@code keys.json} (owner-only, {@code rw-------}, from creation
 * on). A key is shown once, when it is made, and only its SHA-256 is stored. Every change is a read-modify-write under an exclusive lock on {@code keys.lock} and
 * publishes the new file atomically, so {@code logpipe keys} and a running standalone may change it at once.
 */
public final class KeyStore {
    /** Tenant ids, as the collector accepts them. */
    public static final String TENANT_PATTERN = "[a-z0-9][a-z0-9_-]{0,62}";

    /**
     * A key made now: the secret (shown once, unless the operator supplied it) and the public id it is listed and
     * revoked by.
     */
    public record Issued(String keyId, String tenant, String key, Origin origin) {
        @Override
        public String toString() {
            return "Issued[" + keyId + ", " + tenant + ", " + origin + "]"; // never the key
        }
    }

    /** Where a key came from: made here (it must be shown once) or supplied by the operator (it is never shown). */
    public enum Origin {
        GENERATED,
        SUPPLIED
    }

    private static final ConcurrentMap<Path, Object> IN_JVM = new ConcurrentHashMap<>();

    private final Path file;
    private final Path lockFile;
    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();

    public KeyStore(Path dataDir, InstantSource clock) {
        this.file = dataDir.resolve("keys.json");
        this.lockFile = dataDir.resolve("keys.lock");
        this.clock = clock;
    }

    public Path file() {
        return file;
    }

    /**
     * Makes a key file written by an older logpipe ({@code rw-r--r--}) owner-only; true when it changed anything.
     * Files this version writes are created owner-only.
     */
    public boolean restrictToOwner() throws IOException {
        return AtomicFile.restrictToOwner(file);
    }

    /** The current contents; {@link KeyFile#EMPTY} when there is no file yet. */
    public KeyFile read() throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return KeyFile.EMPTY;
        }
        return KeyFileCodec.decode(bytes, file);
    }

    /**
     * Makes a key for {@code tenant}, creating the tenant when it does not exist yet. {@code presetKey}, when not
     * null, becomes the key (LOGPIPE_API_KEY at a first start) instead of a random one.
     */
    public Issued createKey(String tenant, String presetKey) throws IOException {
        checkTenant(tenant);
        return issue(tenant, presetKey);
    }

    /** Makes an admin key ({@code presetKey}: LOGPIPE_ADMIN_KEY, or null for a random one). */
    public Issued createAdminKey(String presetKey) throws IOException {
        return issue(null, presetKey);
    }

    /** Removes a key by id; false when there was no such key. */
    public boolean revoke(String keyId) throws IOException {
        boolean[] found = new boolean[1];
        update(f -> {
            found[0] = f.keys().stream().anyMatch(k -> k.id().equals(keyId));
            return found[0] ? f.withoutKey(keyId) : f;
        });
        return found[0];
    }

    /** Sets a tenant's ingest limits (0 = unlimited); false when there is no such tenant. */
    public boolean setLimits(String tenant, long recordsPerSecond, long bytesPerSecond) throws IOException {
        boolean[] found = new boolean[1];
        update(f -> {
            KeyFile.Tenant t = f.tenants().get(tenant);
            found[0] = t != null;
            return t == null ? f : f.withTenant(t.withLimits(recordsPerSecond, bytesPerSecond));
        });
        return found[0];
    }

    /** The stored key with this hash, if any (for authentication). */
    public static Optional<KeyFile.StoredKey> find(KeyFile f, String key) {
        String h = ApiKeys.sha256(key);
        return f.keys().stream().filter(k -> k.sha256().equals(h)).findFirst();
    }

    private Issued issue(String tenant, String presetKey) throws IOException {
        String key = presetKey != null ? presetKey : newKey(tenant == null ? "lpa_" : "lpk_");
        if (key.isBlank() || key.length() < 16 || key.chars().anyMatch(c -> c <= ' ' || c > '~')) {
            throw new IllegalArgumentException(
                    "an API key must be at least 16 printable ASCII characters without " + "spaces");
        }
        String id = (tenant == null ? "admin-" : "key-") + HexFormat.of().formatHex(bytes(5));
        String hash = ApiKeys.sha256(key);
        update(f -> {
            if (f.keys().stream().anyMatch(k -> k.sha256().equals(hash))) {
                throw new IllegalArgumentException(
                        "this key is already in use (key ids are listed by `logpipe keys " + "list`)");
            }
            KeyFile next = f;
            if (tenant != null && !f.tenants().containsKey(tenant)) {
                next = next.withTenant(new KeyFile.Tenant(tenant, clock.instant(), 0, 0));
            }
            return next.withKey(new KeyFile.StoredKey(id, tenant, hash, clock.instant()));
        });
        return new Issued(id, tenant, key, presetKey != null ? Origin.SUPPLIED : Origin.GENERATED);
    }

    private void update(UnaryOperator<KeyFile> change) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        // A file lock excludes other processes only; threads of this JVM queue on a lock per file first.
        Object inJvm = IN_JVM.computeIfAbsent(lockFile.toAbsolutePath().normalize(), p -> new Object());
        synchronized (inJvm) {
            updateLocked(change);
        }
    }

    private void updateLocked(UnaryOperator<KeyFile> change) throws IOException {
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = ch.lock()) {
            KeyFile before = read();
            KeyFile after = change.apply(before);
            if (after != before) {
                AtomicFile.write(file, KeyFileCodec.encode(after), AtomicFile.Access.OWNER_ONLY);
            }
        }
    }

    private String newKey(String prefix) {
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(24));
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    public static void checkTenant(String tenant) {
        if (tenant == null || !tenant.matches(TENANT_PATTERN)) {
            throw new IllegalArgumentException("tenant: must be 1-63 of lower-case letters, digits, '_' and '-', "
                    + "starting with a letter or digit, was \"" + tenant + "\"");
        }
    }
}
