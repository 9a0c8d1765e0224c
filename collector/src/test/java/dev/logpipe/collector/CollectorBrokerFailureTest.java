package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.BrokerProcess;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector against a broker child JVM that is killed with kill -9 and restarted: while it is down requests
 * get 503 with Retry-After and nothing is claimed; every record the collector answered 200 for is in the topic
 * after the restart.
 */
@Integration
class CollectorBrokerFailureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void whileTheBrokerIsDownRequestsGet503AndNoAcknowledgedRecordIsLostAcrossAKillNine() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("broker"));
                CollectorFixture collector = CollectorFixture.start(broker.bootstrapServers(), "fail", "")) {
            Set<String> acknowledged = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                String m = "before " + i;
                assertThat(collector
                                .post(ACME_KEY, "{\"message\":\"" + m + "\"}\n")
                                .statusCode())
                        .isEqualTo(200);
                acknowledged.add(m);
            }

            broker.kill();
            HttpResponse<String> down = collector.post(ACME_KEY, "{\"message\":\"while down\"}\n");
            assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
            assertThat(down.headers().firstValue("Retry-After")).isPresent();
            assertThat(JSON.readTree(down.body()).get("error").asText()).contains("nothing is claimed");
            assertThat(collector.get("/readyz").statusCode()).isEqualTo(503);
            assertThat(collector.get("/healthz").statusCode())
                    .as("the process itself is up")
                    .isEqualTo(200);

            broker.restart();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> collector
                                    .post(ACME_KEY, "{\"message\":\"after restart\"}\n")
                                    .statusCode()
                            == 200);
            acknowledged.add("after restart");
            for (int i = 0; i < 20; i++) {
                String m = "after " + i;
                assertThat(collector
                                .post(ACME_KEY, "{\"message\":\"" + m + "\"}\n")
                                .statusCode())
                        .isEqualTo(200);
                acknowledged.add(m);
            }
            assertThat(collector.get("/readyz").statusCode()).isEqualTo(200);

            List<String> lines = TopicContents.recordLines(
                    TopicContents.readAll(broker.bootstrapServers(), "fail.records", Duration.ofSeconds(30)));
            Set<String> inTopic = new HashSet<>();
            for (String l : lines) {
                inTopic.add(JSON.readTree(l).get("message").asText());
            }
            assertThat(inTopic)
                    .as("every acknowledged record survived the kill -9")
                    .containsAll(acknowledged);
        }
    }
}
