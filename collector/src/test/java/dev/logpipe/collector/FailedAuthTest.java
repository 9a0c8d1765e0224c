package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Guessing keys at ingest over real HTTP (the issue's ~960 wrong keys in 0.37 s were all answered 401): past the
 * per-address burst every failed authentication is a 429 with Retry-After and a JSON body, counted in a metric,
 * while a valid key from the same address is still served.
 */
@Integration
class FailedAuthTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final CollectorExtension COLLECTOR =
            new CollectorExtension("failedauth", "auth:\n  failure_burst: 5\n  failures_per_minute: 1\n");

    @Test
    void wrongKeysPastTheBurstAre429WithRetryAfterAndAValidKeyIsStillServed() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        HttpResponse<String> last = null;
        for (int i = 0; i < 200; i++) {
            last = COLLECTOR.collector().post("guess-" + i + "-0123456789", "{\"message\":\"guess\"}\n");
            statuses.add(last.statusCode());
        }
        assertThat(statuses.subList(0, 5)).containsOnly(401);
        assertThat(statuses.subList(5, 200)).containsOnly(429);
        assertThat(last.headers().firstValue("Retry-After"))
                .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
        assertThat(last.headers().firstValue("Content-Type")).hasValue("application/json");
        JsonNode body = JSON.readTree(last.body());
        assertThat(body.toString()).contains("too many failed authentications from this address");

        HttpResponse<String> ok = COLLECTOR.collector().post(ACME_KEY, "{\"message\":\"fa valid key\"}\n");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(COLLECTOR
                        .collector()
                        .post(null, "{\"message\":\"no key\"}\n")
                        .statusCode())
                .as("no key at all is a failure too")
                .isEqualTo(429);
        String metrics = COLLECTOR.collector().get("/metrics").body();
        assertThat(metrics)
                .contains("logpipe_auth_failures_total{outcome=\"refused\"} 5.0")
                .contains("logpipe_auth_failures_total{outcome=\"throttled\"} 196.0")
                .contains("logpipe_auth_failure_addresses 1.0");
    }
}
