package dev.logpipe.server.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.server.standalone.Http;
import dev.logpipe.server.standalone.Standalone;
import dev.logpipe.server.standalone.StandaloneConfigLoader;
import dev.logpipe.testkit.Integration;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --demo}: generated files shipped by the in-process forwarders become searchable, as tenant default. */
@Integration
class DemoTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "demo-test-key-0123456789";

    @TempDir
    Path dir;

    private static JsonNode search(Standalone s, String q) throws Exception {
        return JSON.readTree(Http.get(
                        s.baseUrl() + "/api/v1/search?from=now-2h&limit=5&q="
                                + URLEncoder.encode(q, StandardCharsets.UTF_8),
                        KEY)
                .body());
    }

    @Test
    void demoLogsOfSeveralServicesWithStackTracesAndFieldsBecomeSearchable() throws Exception {
        Path data = dir.resolve("data");
        try (Standalone s = Standalone.start(
                new StandaloneConfigLoader().load(null, new StandaloneConfigLoader.Flags(data, 0, 0, true)),
                Map.of("LOGPIPE_API_KEY", KEY),
                Clock.systemUTC())) {
            Demo demo = Demo.start(
                    data.resolve("demo-logs"), data.resolve("demo-state"), s.baseUrl(), s.keys(), Clock.systemUTC());
            s.stopFirst(demo);
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> search(s, "service:payments").path("hits").size() > 0
                            && search(s, "service:checkout AND fields.took_ms:>=0")
                                            .path("hits")
                                            .size()
                                    > 0
                            && search(s, "level:ERROR AND TimeoutException")
                                            .path("hits")
                                            .size()
                                    > 0
                            && search(s, "region:us-east-1").path("hits").size() > 0);
            JsonNode trace =
                    search(s, "level:ERROR AND TimeoutException").path("hits").get(0);
            assertThat(trace.path("message").asText()).contains("\n\tat ");
            assertThat(trace.path("tenant_id").asText()).isEqualTo("default");
            // the checkout service's "region" key is the schema's region, as the UI's region: filter expects
            JsonNode inRegion = search(s, "region:us-east-1").path("hits").get(0);
            assertThat(inRegion.path("service").asText()).isEqualTo("checkout");
            assertThat(inRegion.path("region").asText()).isEqualTo("us-east-1");
            assertThat(inRegion.path("fields").has("region")).isFalse();
            // the demo's key lives only in this process
            assertThat(Files.readString(data.resolve("keys.json"))).doesNotContain("internal-demo");
            assertThat(demo.linesWritten()).isGreaterThan(1000); // the 30 minutes of backfill
        }
    }
}
