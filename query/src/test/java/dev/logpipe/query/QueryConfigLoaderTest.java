package dev.logpipe.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.config.QueryConfigLoader;
import dev.logpipe.query.internal.plan.CursorSecret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueryConfigLoaderTest {
    static final String HASH = "a".repeat(64);

    @TempDir
    Path dir;

    QueryConfig parse(String yaml) throws ConfigException {
        return new QueryConfigLoader().parse(yaml, dir.resolve("query.yaml").toString());
    }

    @Test
    void theExampleConfigurationLoads() throws Exception {
        QueryConfig c = new QueryConfigLoader().load(Path.of("../examples/query.yaml"));
        assertThat(c.tenants()).hasSize(1);
        assertThat(c.tenant("acme").maxWindow()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void perTenantLimitsOverrideTheDefaults() throws Exception {
        QueryConfig c = parse("limits:\n  max_window: 2d\ntenants:\n  - id: a\n    api_key_sha256: [" + HASH + "]\n"
                + "  - id: b\n    api_key_sha256: [" + "b".repeat(64) + "]\n    max_window: 36h\n"
                + "    max_concurrent_queries: 2\n");
        assertThat(c.tenant("a").maxWindow()).isEqualTo(Duration.ofDays(2));
        assertThat(c.tenant("b").maxWindow()).isEqualTo(Duration.ofHours(36));
        assertThat(c.tenant("b").maxConcurrentQueries()).isEqualTo(2);
        assertThat(c.cursorSecretFile()).isEqualTo(dir.resolve("data").resolve("query-cursor.key"));
    }

    @Test
    void invalidValuesFailNamingTheKeyPath() throws Exception {
        assertThatThrownBy(() -> parse("tenants:\n  - id: a\n    api_key_sha256: [nothex]\n"))
                .hasMessageStartingWith("tenants[0].api_key_sha256[0]: must be 64 lower-case hex digits");
        assertThatThrownBy(() -> parse("tenants:\n  - id: a\n    api_key_sha256: []\n"))
                .hasMessageStartingWith("tenants[0].api_key_sha256: needs at least one key");
        assertThatThrownBy(() -> parse("tenants:\n  - id: a\n    api_key_sha256: [" + HASH + "]\n    max_window: 5y\n"))
                .hasMessageStartingWith("tenants[0].max_window: must be a window like 15m, 24h or 30d");
        assertThatThrownBy(() -> parse("limits:\n  max_shards: 0\n")).hasMessageStartingWith("limits.max_shards");
        assertThatThrownBy(() -> parse("tenants:\n  - id: a\n    api_key_sha256: [" + HASH + "]\nadmin:\n"
                        + "  scrape_key_sha256: [NOTHEX]\n"))
                .hasMessageStartingWith("admin.scrape_key_sha256[0]: must be 64 lower-case hex digits");
        assertThatThrownBy(() -> parse("limits:\n  bogus: 1\n")).hasMessage("limits.bogus: unknown key");
        assertThatThrownBy(() -> parse("limits:\n  max_answer_bytes: 1KiB\n"))
                .hasMessageStartingWith("limits.max_answer_bytes: must be between 65536");
        assertThatThrownBy(() -> parse("limits:\n  max_answer_bytes: 8MiB\n  answer_memory_bytes: 4MiB\n"))
                .hasMessageStartingWith("limits.answer_memory_bytes: must be at least limits.max_answer_bytes");
        assertThatThrownBy(() -> parse("limits:\n  tenant_answer_memory_bytes: 128MiB\n"))
                .hasMessageStartingWith("limits.tenant_answer_memory_bytes: must be between");
        assertThatThrownBy(() -> parse("limits:\n  max_tails: 2\n  max_tails_per_tenant: 3\n"))
                .hasMessageStartingWith("limits.max_tails_per_tenant: must be at most limits.max_tails (2)");
        assertThatThrownBy(() -> parse("limits:\n  tail_lag: 11m\n"))
                .hasMessage("limits.tail_lag: must be <= 600s, was 660s");
        assertThat(parse("limits:\n  tail_lag: 10m\n").limits().tailLag()).isEqualTo(Duration.ofMinutes(10));
        QueryConfig.Limits l = parse("limits:\n  max_answer_bytes: 16MiB\n").limits();
        assertThat(l.answerMemoryBytes()).isEqualTo(64L << 20);
        assertThat(l.tenantAnswerMemoryBytes()).isEqualTo(32L << 20);
        assertThatThrownBy(() -> parse("tenants:\n  - id: a\n    api_key_sha256: [" + HASH + "]\n  - id: b\n"
                        + "    api_key_sha256: [" + HASH + "]\n"))
                .hasMessageContaining("tenants[1].api_key_sha256[0]: this key " + "is already listed");
    }

    @Test
    void theCursorSecretIsCreatedOwnerOnlyAndAnOlderReadableOneIsRestricted() throws Exception {
        Path secret = dir.resolve("query-cursor.key");
        Files.writeString(dir.resolve("query-cursor.key.new.tmp"), "stale, readable by all");
        CursorSecret.loadOrCreate(secret);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
                .isEqualTo("rw-------");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
        CursorSecret.loadOrCreate(secret);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
                .isEqualTo("rw-------");
    }

    @Test
    void replicasStartingAtOnceAllCreateOrReadTheSameCursorSecret() throws Exception {
        int replicas = 8;
        ExecutorService pool = Executors.newFixedThreadPool(replicas);
        try {
            for (int round = 0; round < 20; round++) {
                Path secret = dir.resolve("round-" + round).resolve("cursor.key");
                CyclicBarrier together = new CyclicBarrier(replicas);
                List<Future<String>> keys = new ArrayList<>();
                for (int r = 0; r < replicas; r++) {
                    keys.add(pool.submit(() -> {
                        together.await();
                        return HexFormat.of().formatHex(CursorSecret.loadOrCreate(secret));
                    }));
                }
                String first = keys.get(0).get();
                for (Future<String> k : keys) {
                    assertThat(k.get()).isEqualTo(first);
                }
                assertThat(Files.readString(secret)).isEqualTo(first);
                try (var left = Files.list(secret.getParent())) {
                    assertThat(left.map(p -> p.getFileName().toString())).containsExactly("cursor.key");
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCorruptCursorSecretStopsStartupNamingTheFile() throws Exception {
        Path secret = dir.resolve("query-cursor.key");
        byte[] first = CursorSecret.loadOrCreate(secret);
        assertThat(CursorSecret.loadOrCreate(secret)).isEqualTo(first);
        assertThat(Files.readString(secret)).isEqualTo(HexFormat.of().formatHex(first));
        Files.writeString(secret, "garbage");
        assertThatThrownBy(() -> CursorSecret.loadOrCreate(secret))
                .hasMessageContaining(secret.toString())
                .hasMessageContaining("corrupt");
    }
}
