package dev.logpipe.server.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyStoreTest {
    @TempDir
    Path dir;

    private final InstantSource clock = InstantSource.fixed(Instant.parse("2026-12-01T12:00:00Z"));

    @Test
    void aKeyIsStoredOnlyAsItsHashAndAuthenticatesItsTenant() throws Exception {
        KeyStore store = new KeyStore(dir, clock);
        KeyStore.Issued i = store.createKey("acme", null);
        String file = Files.readString(store.file());
        assertThat(file).doesNotContain(i.key()).contains(i.keyId()).contains("acme");
        KeyFile f = store.read();
        assertThat(KeyStore.find(f, i.key()))
                .get()
                .extracting(KeyFile.StoredKey::tenant)
                .isEqualTo("acme");
        assertThat(KeyStore.find(f, i.key() + "x")).isEmpty();
        assertThat(i.toString()).doesNotContain(i.key());
    }

    @Test
    void theKeyFileIsOwnerOnlyFromItsCreationEvenOverAStaleTempFile() throws Exception {
        KeyStore store = new KeyStore(dir, clock);
        // a temp file a crash left behind, readable by all: the new file must not inherit its permissions
        Path stale = dir.resolve("keys.json.tmp");
        Files.writeString(stale, "{}");
        Files.setPosixFilePermissions(stale, PosixFilePermissions.fromString("rw-r--r--"));
        store.createKey("acme", null);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())))
                .isEqualTo("rw-------");
        store.createKey("acme", null); // every rewrite too
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())))
                .isEqualTo("rw-------");
    }

    @Test
    void aKeyFileOfAnOlderVersionReadableByOthersIsMadeOwnerOnly() throws Exception {
        KeyStore store = new KeyStore(dir, clock);
        store.createKey("acme", null);
        Files.setPosixFilePermissions(store.file(), PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(store.restrictToOwner()).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())))
                .isEqualTo("rw-------");
        assertThat(store.restrictToOwner()).isFalse();
    }

    @Test
    void aKeyTellsWhetherItWasMadeHereOrSupplied() throws Exception {
        KeyStore store = new KeyStore(dir, clock);
        assertThat(store.createKey("acme", null).origin()).isEqualTo(KeyStore.Origin.GENERATED);
        assertThat(store.createKey("acme", "an-operator-supplied-key").origin()).isEqualTo(KeyStore.Origin.SUPPLIED);
    }

    @Test
    void revokedKeysNoLongerAuthenticateAndUnknownIdsSaySo() throws Exception {
        KeyStore store = new KeyStore(dir, clock);
        KeyStore.Issued a = store.createKey("acme", null);
        KeyStore.Issued b = store.createKey("acme", null);
        assertThat(store.revoke(a.keyId())).isTrue();
        assertThat(store.revoke(a.keyId())).isFalse();
        KeyFile f = store.read();
        assertThat(KeyStore.find(f, a.key())).isEmpty();
        assertThat(KeyStore.find(f, b.key())).isPresent();
        assertThat(f.tenants()).containsKey("acme");
    }

    @Test
    void presetKeysBecomeTheKeyButAreNeverReusedAcrossTenants() throws Exception {
        KeyStore store = new KeyStore(dir, clock);
        store.createKey("default", "a-preset-key-of-some-length");
        assertThat(KeyStore.find(store.read(), "a-preset-key-of-some-length"))
                .get()
                .extracting(KeyFile.StoredKey::tenant)
                .isEqualTo("default");
        assertThatThrownBy(() -> store.createKey("other", "a-preset-key-of-some-length"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already in use");
        assertThatThrownBy(() -> store.createKey("default", "short")).hasMessageContaining("at least 16");
    }

    @Test
    void badTenantNamesAreRefusedWithTheRule() {
        KeyStore store = new KeyStore(dir, clock);
        for (String bad : new String[] {"", "Acme", "../x", "a b", "-x", "x".repeat(64)}) {
            assertThatThrownBy(() -> store.createKey(bad, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tenant: must be");
        }
    }

    @Test
    void aCorruptKeyFileIsAnErrorNamingTheFile() throws Exception {
        KeyStore store = new KeyStore(dir, clock);
        Files.writeString(store.file(), "{\"version\":1,\"tenants\":{},\"keys\":[{\"id\":\"k\"");
        assertThatThrownBy(store::read)
                .isInstanceOf(IOException.class)
                .hasMessageContaining(store.file().toString())
                .hasMessageContaining("corrupt");
        Files.writeString(
                store.file(),
                "{\"version\":1,\"tenants\":{},\"keys\":[{\"id\":\"k\",\"tenant\":\"ghost\"," + "\"sha256\":\""
                        + "0".repeat(64) + "\",\"created\":\"2026-12-01T00:00:00Z\"}]}");
        assertThatThrownBy(store::read).hasMessageContaining("unknown tenant ghost");
    }

    @Test
    void parallelCreatesFromTwoStoresLoseNoKey() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<KeyStore.Issued>> made = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                KeyStore s = new KeyStore(dir, clock); // as if separate processes: no shared memory
                String tenant = "t" + (i % 5);
                made.add(pool.submit((Callable<KeyStore.Issued>) () -> s.createKey(tenant, null)));
            }
            List<KeyStore.Issued> issued = new ArrayList<>();
            for (Future<KeyStore.Issued> m : made) {
                issued.add(m.get());
            }
            KeyFile f = new KeyStore(dir, clock).read();
            for (KeyStore.Issued i : issued) {
                assertThat(KeyStore.find(f, i.key())).isPresent();
            }
            assertThat(f.keys()).hasSize(40);
            assertThat(f.tenants()).hasSize(5);
        } finally {
            pool.shutdownNow();
        }
    }
}
