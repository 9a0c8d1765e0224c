package dev.logpipe.indexer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.IndexerFixture;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The indexer's legal-hold API counts wrong admin keys against the client address like every other API
 * (docs/indexer.md#retention-and-legal-holds): past {@code auth.failure_burst} they are 429 with Retry-After.
 */
@Integration
class LegalHoldCredentialsTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    private static final String HOLDS = "/api/v1/admin/legal-holds";

    @TempDir
    Path data;

    @Test
    void wrongAdminKeysPastTheBurstAre429WithRetryAfterAndCountedInTheIndexersMetrics() throws Exception {
        try (Indexer indexer = IndexerFixture.start(
                KAFKA.bootstrapServers(),
                "holdauth",
                data,
                "auth:\n  failure_burst: 2\n  failures_per_minute: 1\n",
                Clock.systemUTC())) {
            assertThat(IndexerFixture.get(indexer, HOLDS, "wrong-0123456789").statusCode())
                    .isEqualTo(401);
            assertThat(IndexerFixture.get(indexer, HOLDS, null).statusCode()).isEqualTo(401);
            HttpResponse<String> throttled = IndexerFixture.get(indexer, HOLDS, "wrong-0123456789");
            assertThat(throttled.statusCode()).isEqualTo(429);
            assertThat(throttled.headers().firstValue("Retry-After"))
                    .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
            assertThat(throttled.body())
                    .contains("too many failed authentications")
                    .contains("auth_failures");

            assertThat(IndexerFixture.get(indexer, HOLDS, IndexerFixture.ADMIN_KEY)
                            .statusCode())
                    .as("a valid key from the throttled address is served")
                    .isEqualTo(200);
            String metrics = IndexerFixture.get(indexer, "/metrics", null).body();
            assertThat(metrics).contains("logpipe_auth_failures_total{outcome=\"throttled\"} 1.0");
            assertThat(metrics).contains("logpipe_auth_failures_total{outcome=\"refused\"} 2.0");
        }
    }
}
