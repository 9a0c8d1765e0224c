package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.query.InvalidQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.lucene.CommittedShards;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A query the service parsed but an engine refuses to build while searching (an {@link InvalidQuery} from a shard
 * searcher) is answered as a parse refusal is: 400 {@code bad_query} with the engine's reason, not a partial answer or
 * a 500.
 */
class EngineRefusalTest {
    static final Instant NOW = Instant.parse("2026-12-20T12:00:00Z");
    static final String REASON = "query does not parse: the engine cannot build this (test)";

    @TempDir
    Path dir;

    /** Committed shards whose searchers refuse every key search with an {@link InvalidQuery}. */
    record RefusingShards(ShardSource real) implements ShardSource {
        @Override
        public List<ShardId> shards(ShardKind kind, String tenant) throws IOException {
            return real.shards(kind, tenant);
        }

        @Override
        public Optional<ShardMetadata> metadata(ShardId shard) throws IOException {
            return real.metadata(shard);
        }

        @Override
        public Optional<ShardSearcher> open(ShardId shard) throws IOException {
            return real.open(shard).map(RefusingShards::refusing);
        }

        private static ShardSearcher refusing(ShardSearcher s) {
            return (ShardSearcher) Proxy.newProxyInstance(
                    ShardSearcher.class.getClassLoader(), new Class<?>[] {ShardSearcher.class}, (p, m, args) -> {
                        if (m.getName().equals("keys")) {
                            throw new InvalidQuery(REASON, null);
                        }
                        try {
                            return m.invoke(s, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    @Test
    void aQueryAnEngineRefusesWhileSearchingIsA400BadQuery() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        QueryFixture.write(
                data,
                List.of(record("acme", "r-1", NOW.minusSeconds(60), "boom").build()));
        QueryConfig config = QueryFixture.config(data, "");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (CommittedShards committed = new CommittedShards(new ShardLayout(data), Duration.ofHours(1));
                QueryService service = QueryService.create(
                        config,
                        new RefusingShards(committed),
                        new ConfiguredKeys(config.keys())::authenticate,
                        IndexerProgress.NONE,
                        InstantSource.fixed(NOW),
                        registry)) {
            committed.start();
            QueryServer server = new QueryServer(config.listen(), service, registry, () -> true, 32);
            server.start();
            try {
                String url = "http://127.0.0.1:" + server.address().getPort() + "/api/v1/search?q=boom";
                HttpResponse<String> r = HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create(url))
                                        .header("Authorization", "Bearer " + ACME_KEY)
                                        .timeout(Duration.ofSeconds(30))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(400);
                JsonNode j = new ObjectMapper().readTree(r.body());
                assertThat(j.get("reason").asText()).isEqualTo("bad_query");
                assertThat(j.get("error").asText()).isEqualTo("q: " + REASON);
            } finally {
                server.close();
            }
        }
    }
}
