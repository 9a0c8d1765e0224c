package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.config.ConfigException;
import dev.logpipe.testkit.Integration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The warm-up before ready: real work on throwaway data, nothing of the user's touched, off with a key. */
@Integration
class WarmUpTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "warmup-default-key-0123456789";
    private static final String ADMIN = "warmup-admin-key-0123456789";

    @TempDir
    Path dir;

    private StandaloneConfig config(String yaml) throws Exception {
        Path file = dir.resolve("standalone.yaml");
        Files.writeString(file, yaml);
        return new StandaloneConfigLoader()
                .load(file, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false));
    }

    private static Set<Path> warmUpDirs() throws Exception {
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("logpipe-warmup"))
                    .collect(Collectors.toSet());
        }
    }

    @Test
    void warmUpIndexesAndSearchesThrowawayDataAndLeavesTheUsersTenantsTopicsAndTempFilesAlone() throws Exception {
        Set<Path> before = warmUpDirs();
        try (Standalone s = Standalone.start(
                config("warm_up: 1s\n"),
                Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN),
                Clock.systemUTC())) {
            WarmUp.Result r = s.warmUp().orElseThrow();
            assertThat(r.records()).isGreaterThanOrEqualTo(500);
            // it used its budget, and stopped soon after it (the last round and the clean-up may overrun on a busy box)
            assertThat(r.millis()).isBetween(1_000L, 15_000L);
            // nothing was published to the user's topics, nothing is searchable for the user's tenant
            JsonNode totals = JSON.readTree(Http.get(s.baseUrl() + "/api/v1/indexer/status", null)
                            .body())
                    .path("totals");
            assertThat(totals.path("durable").asLong()).isZero();
            assertThat(totals.path("indexed").asLong()).isZero();
            Http.Answer search = Http.get(s.baseUrl() + "/api/v1/search?from=now-1h&q=warm", KEY);
            assertThat(search.status()).as(search.body()).isEqualTo(200);
            assertThat(search.body()).doesNotContain("warm-up batch");
            // no shard, tenant or key of the warm-up in the data directory
            Path index = dir.resolve("data/index");
            if (Files.exists(index)) {
                try (Stream<Path> files = Files.walk(index)) {
                    assertThat(files.map(Path::toString).toList()).noneMatch(p -> p.contains(WarmUp.TENANT));
                }
            }
            assertThat(Files.readString(dir.resolve("data/keys.json"))).doesNotContain(WarmUp.TENANT);
            assertThat(warmUpDirs())
                    .as("the warm-up's temp directory is deleted")
                    .isEqualTo(before);
        }
    }

    @Test
    void warmUpZeroTurnsItOff() throws Exception {
        try (Standalone s = Standalone.start(
                config("warm_up: 0s\n"),
                Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN),
                Clock.systemUTC())) {
            assertThat(s.warmUp()).isEmpty();
        }
    }

    @Test
    void warmUpIsOnByDefaultAndBoundedInTheConfig() throws Exception {
        assertThat(config("{}\n").warmUp()).isEqualTo(Duration.ofSeconds(3));
        for (String bad : List.of("warm_up: 11s\n", "warm_up: soon\n", "warm_up: -1s\n")) {
            assertThatThrownBy(() -> config(bad))
                    .as(bad)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("warm_up: must be");
        }
    }
}
