package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.testkit.Integration;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, item 3: every record the collector acknowledges is findable afterwards, as a record (search) or as a dead
 * letter of its tenant (dead-letters), through a real standalone: collector, broker, indexer and query in one JVM.
 * Each line is sent alone, so its answer says whether it was accepted or dead-lettered.
 */
@Integration
class AcknowledgedRecordsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "test-default-key-0123456789";
    private static final String ADMIN = "test-admin-key-0123456789";

    @TempDir
    Path dir;

    /** Lines that the collector took and the indexer then refused (and, with no tenant, lost) before the fix. */
    private static Map<String, String> edgeLines() {
        Map<String, String> lines = new LinkedHashMap<>();
        lines.put("ackedge0", "{\"message\":\"ackedge0 control\",\"event_time\":\"2026-01-01T00:00:00Z\"}");
        lines.put("ackedge1", "{\"message\":\"ackedge1 year minus one\",\"event_time\":\"-000001-01-01T00:00:00Z\"}");
        lines.put("ackedge2", "{\"message\":\"ackedge2 year 100000\",\"event_time\":\"+100000-01-01T00:00:00Z\"}");
        lines.put(
                "ackedge3",
                "{\"message\":\"ackedge3 before year 0 in UTC\",\"event_time\":\"0000-01-01T00:00:00+01:00\"}");
        // 1,000 fields (the most a record may hold) and a time the collector flags: 1,001 once flagged
        ObjectNode full = JSON.createObjectNode().put("message", "ackedge4 a thousand fields, flagged");
        full.put("event_time", "2099-01-01T00:00:00Z");
        ObjectNode fields = full.putObject("fields");
        for (int i = 0; i < 1000; i++) {
            fields.put("f" + i, i);
        }
        lines.put("ackedge4", full.toString());
        // a field name that redaction makes longer than 1,024 characters
        ObjectNode longName = JSON.createObjectNode().put("message", "ackedge5 a name redaction lengthens");
        longName.putObject("fields").put("n".repeat(1000) + "AKIAIOSFODNN7EXAMPLE", "v");
        lines.put("ackedge5", longName.toString());
        return lines;
    }

    @Test
    void everyAcknowledgedRecordIsSearchableOrADeadLetterOfItsTenant() throws Exception {
        StandaloneConfig config = new StandaloneConfigLoader()
                .load(null, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false));
        try (Standalone s = Standalone.start(
                config, Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN), Clock.systemUTC())) {
            List<String> acknowledged = new ArrayList<>();
            for (Map.Entry<String, String> e : edgeLines().entrySet()) {
                Http.Answer a = Http.post(s.baseUrl() + "/api/v1/logs", KEY, e.getValue() + "\n");
                assertThat(a.status()).as(a.body()).isEqualTo(200);
                JsonNode ack = JSON.readTree(a.body());
                assertThat(ack.path("accepted").asInt()
                                + ack.path("dead_lettered").asInt())
                        .as(a.body())
                        .isEqualTo(1);
                acknowledged.add(e.getKey());
            }
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(acknowledged)
                            .as("acknowledged records neither searchable nor dead letters")
                            .allSatisfy(marker ->
                                    assertThat(found(s, marker)).as(marker).isTrue()));
            assertThat(Http.get(s.baseUrl() + "/metrics", null).body())
                    .doesNotContain("logpipe_indexer_dead_letters_skipped_total{");
        }
    }

    private static boolean found(Standalone s, String marker) throws Exception {
        return count(s, "/api/v1/search", marker) + count(s, "/api/v1/dead-letters", marker) > 0;
    }

    private static int count(Standalone s, String path, String q) throws Exception {
        Http.Answer a =
                Http.get(s.baseUrl() + path + "?from=now-1h&q=" + URLEncoder.encode(q, StandardCharsets.UTF_8), KEY);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return JSON.readTree(a.body()).path("hits").size();
    }
}
