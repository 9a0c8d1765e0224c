package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.InfoResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Elasticsearch {@code _bulk} into the real collector and broker: the real Java client and shippers' wire formats. */
@Integration
class BulkIngestTest {
    @RegisterExtension
    static final CollectorExtension COMPAT = new CollectorExtension("bulk");

    private static List<JsonNode> records(String prefix) throws Exception {
        return COMPAT.records(prefix);
    }

    private static String basic(String key) {
        return "Basic " + Base64.getEncoder().encodeToString(("elastic:" + key).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theElasticsearchJavaClientsBulkIsAcceptedWithPerItemStatusAndTheMappedFields() throws Exception {
        try (ElasticsearchClient es = ElasticsearchClient.of(
                b -> b.host("http://127.0.0.1:" + COMPAT.port()).usernameAndPassword("elastic", ACME_KEY))) {
            InfoResponse info = es.info();
            assertThat(info.version().number()).startsWith("8.");

            Map<String, Object> ecs = new LinkedHashMap<>();
            ecs.put("@timestamp", "2026-12-01T10:00:00.123Z");
            ecs.put("message", "b1 checkout failed");
            ecs.put("log", Map.of("level", "warning", "logger", "shop.Checkout"));
            ecs.put("service", Map.of("name", "checkout", "node", Map.of("name", "pod-7")));
            ecs.put("cloud", Map.of("region", "eu-west-1"));
            ecs.put("trace", Map.of("id", "4bf92f3577b34da6a3ce929d0e0e4736"));
            ecs.put("span", Map.of("id", "00f067aa0ba902b7"));
            ecs.put("http", Map.of("response", Map.of("status_code", 502)));
            Map<String, Object> dotted = Map.of(
                    "@timestamp",
                    1764583200000L,
                    "message",
                    "b1 dotted keys",
                    "log.level",
                    "ERROR",
                    "service.name",
                    "billing");
            Map<String, Object> noMessage = Map.of("@timestamp", "2026-12-01T10:00:01Z", "text", "b1 no message");

            BulkResponse r = es.bulk(b -> b.operations(o ->
                            o.index(i -> i.index("app-logs").id("ecs-doc-1").document(ecs)))
                    .operations(o -> o.create(c -> c.index("app-logs").document(dotted)))
                    .operations(o -> o.create(c -> c.index("app-logs").document(noMessage))));
            assertThat(r.errors()).isTrue();
            assertThat(r.items()).extracting(BulkResponseItem::status).containsExactly(201, 201, 400);
            assertThat(r.items().get(0).id()).isEqualTo("ecs-doc-1");
            assertThat(r.items().get(0).index()).isEqualTo("app-logs");
            assertThat(r.items().get(2).error().reason()).contains("neither a message nor a log field");
        }
        List<JsonNode> got = records("b1 ");
        assertThat(got).hasSize(2);
        JsonNode ecs = got.stream()
                .filter(n -> n.get("message").asText().equals("b1 checkout failed"))
                .findFirst()
                .orElseThrow();
        assertThat(ecs.get("tenant_id").asText()).isEqualTo("acme");
        assertThat(ecs.get("record_id").asText()).isEqualTo("ecs-doc-1");
        assertThat(ecs.get("event_time").asText()).isEqualTo("2026-12-01T10:00:00.123Z");
        assertThat(ecs.get("level").asText()).isEqualTo("WARN");
        assertThat(ecs.get("service").asText()).isEqualTo("checkout");
        assertThat(ecs.get("instance_id").asText()).isEqualTo("pod-7");
        assertThat(ecs.get("region").asText()).isEqualTo("eu-west-1");
        assertThat(ecs.get("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(ecs.get("span_id").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(ecs.get("fields").get("log.logger").asText()).isEqualTo("shop.Checkout");
        assertThat(ecs.get("fields").get("http.response.status_code").asInt()).isEqualTo(502);
        assertThat(ecs.get("fields").get("elasticsearch.index").asText()).isEqualTo("app-logs");
        JsonNode dotted = got.stream()
                .filter(n -> n.get("message").asText().equals("b1 dotted keys"))
                .findFirst()
                .orElseThrow();
        assertThat(dotted.get("level").asText()).isEqualTo("ERROR");
        assertThat(dotted.get("service").asText()).isEqualTo("billing");
        assertThat(dotted.get("event_time").asText()).startsWith("2025-12-01T10:00:00");
        assertThat(COMPAT.deadLetters())
                .anySatisfy(d -> assertThat(d.get("raw").asText()).contains("b1 no message"));
    }

    @Test
    void fluentBitVectorAndFilebeatRequestsInTheirWireFormatAreAccepted() throws Exception {
        // Fluent Bit's es output (Suppress_Type_Name On, Write_Operation create), docker/kubernetes "log" key.
        String fluentBit = "{\"create\":{\"_index\":\"fluent-bit\"}}\n"
                + "{\"@timestamp\":\"2026-12-01T10:00:02.000Z\",\"log\":\"b2 fluent-bit line\\n\",\"stream\":\"stdout\","
                + "\"kubernetes\":{\"pod_name\":\"web-1\",\"namespace_name\":\"shop\"}}\n";
        HttpResponse<byte[]> fb = COMPAT.client()
                .send(
                        "POST",
                        "/_bulk",
                        fluentBit.getBytes(StandardCharsets.UTF_8),
                        "Content-Type",
                        "application/x-ndjson",
                        "User-Agent",
                        "Fluent-Bit",
                        "Authorization",
                        basic(ACME_KEY));
        assertThat(fb.statusCode()).as(CompatClient.text(fb)).isEqualTo(200);
        assertThat(CompatClient.json(fb).get("errors").asBoolean()).isFalse();
        assertThat(fb.headers().firstValue("X-Elastic-Product")).contains("Elasticsearch");

        // Vector's elasticsearch sink (mode bulk, action index): "timestamp" and "host" keys.
        String vector = "{\"index\":{\"_index\":\"vector-2026.12.01\"}}\n"
                + "{\"host\":\"vec-host\",\"message\":\"b2 vector line\",\"source_type\":\"file\","
                + "\"timestamp\":\"2026-12-01T10:00:03.456789Z\"}\n";
        HttpResponse<byte[]> v = COMPAT.client()
                .send(
                        "POST",
                        "/_bulk",
                        vector.getBytes(StandardCharsets.UTF_8),
                        "Content-Type",
                        "application/x-ndjson",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(v.statusCode()).as(CompatClient.text(v)).isEqualTo(200);

        // Filebeat 8 (data stream, create, gzip level 1, filter_path).
        String filebeat = "{\"create\":{\"_index\":\"filebeat-8.19.0\"}}\n"
                + "{\"@timestamp\":\"2026-12-01T10:00:04.000Z\",\"message\":\"b2 filebeat line\",\"log\":{\"offset\":0,"
                + "\"file\":{\"path\":\"/var/log/app.log\"}},\"input\":{\"type\":\"filestream\"},\"ecs\":{\"version\":"
                + "\"8.0.0\"},\"host\":{\"name\":\"fb-host\"},\"agent\":{\"type\":\"filebeat\",\"version\":\"8.19.0\"}}\n";
        HttpResponse<byte[]> f = COMPAT.client()
                .send(
                        "POST",
                        "/_bulk?filter_path=errors,items.*.error,items.*.status",
                        CollectorFixture.gzip(filebeat),
                        "Content-Type",
                        "application/json",
                        "Content-Encoding",
                        "gzip",
                        "Authorization",
                        basic(ACME_KEY));
        assertThat(f.statusCode()).as(CompatClient.text(f)).isEqualTo(200);
        assertThat(CompatClient.json(f)
                        .get("items")
                        .get(0)
                        .get("create")
                        .get("status")
                        .asInt())
                .isEqualTo(201);

        List<JsonNode> got = records("b2 ");
        assertThat(got).hasSize(3);
        JsonNode fbr = got.stream()
                .filter(n -> n.get("message").asText().startsWith("b2 fluent-bit"))
                .findFirst()
                .orElseThrow();
        assertThat(fbr.get("fields").get("kubernetes.pod_name").asText()).isEqualTo("web-1");
        assertThat(fbr.get("fields").get("elasticsearch.index").asText()).isEqualTo("fluent-bit");
        JsonNode vr = got.stream()
                .filter(n -> n.get("message").asText().startsWith("b2 vector"))
                .findFirst()
                .orElseThrow();
        assertThat(vr.get("instance_id").asText()).isEqualTo("vec-host");
        assertThat(vr.get("event_time").asText()).isEqualTo("2026-12-01T10:00:03.456789000Z");
        JsonNode fr = got.stream()
                .filter(n -> n.get("message").asText().startsWith("b2 filebeat"))
                .findFirst()
                .orElseThrow();
        assertThat(fr.get("instance_id").asText()).isEqualTo("fb-host");
        assertThat(fr.get("fields").get("log.file.path").asText()).isEqualTo("/var/log/app.log");
    }

    @Test
    void theHandshakeProbesOfShippersGetHarmlessAnswers() throws Exception {
        HttpResponse<byte[]> root = COMPAT.client().send("GET", "/", null);
        assertThat(root.statusCode()).isEqualTo(200);
        assertThat(CompatClient.json(root).get("version").get("number").asText())
                .startsWith("8.");
        assertThat(CompatClient.json(root).get("tagline").asText()).isEqualTo("You Know, for Search");
        assertThat(COMPAT.client()
                        .send("HEAD", "/_index_template/filebeat-8.19.0", null)
                        .statusCode())
                .isEqualTo(200);
        assertThat(CompatClient.json(COMPAT.client()
                                .send(
                                        "PUT",
                                        "/_index_template/logstash",
                                        "{\"index_patterns\":[\"logstash-*\"]}".getBytes(StandardCharsets.UTF_8),
                                        "Content-Type",
                                        "application/json"))
                        .get("acknowledged")
                        .asBoolean())
                .isTrue();
        assertThat(CompatClient.json(COMPAT.client().send("GET", "/_license", null))
                        .get("license")
                        .get("status")
                        .asText())
                .isEqualTo("active");
        assertThat(CompatClient.json(COMPAT.client().send("GET", "/_nodes/http", null))
                        .get("_nodes")
                        .get("total")
                        .asInt())
                .isEqualTo(1);
        assertThat(COMPAT.client().send("GET", "/_ilm/policy/filebeat", null).statusCode())
                .isEqualTo(200);
        assertThat(COMPAT.client().send("GET", "/no/such/path/here", null).statusCode())
                .isEqualTo(404);
    }

    @Test
    void badBulkInputGetsElasticsearchErrorShapesAndTheCollectorKeepsServing() throws Exception {
        HttpResponse<byte[]> noKey = COMPAT.client()
                .send(
                        "POST",
                        "/_bulk",
                        "{\"index\":{\"_index\":\"x\"}}\n{\"message\":\"b3 never\"}\n"
                                .getBytes(StandardCharsets.UTF_8));
        assertThat(noKey.statusCode()).isEqualTo(401);
        assertThat(CompatClient.json(noKey).get("error").get("type").asText()).isEqualTo("security_exception");
        assertThat(noKey.headers().allValues("WWW-Authenticate"))
                .anySatisfy(h -> assertThat(h).startsWith("Basic"));

        HttpResponse<byte[]> malformed = COMPAT.client()
                .send(
                        "POST",
                        "/_bulk",
                        "{\"index\":{\"_index\":\"x\"}}\n{\"message\":\"b3 before\"}\nnot an action\n{\"message\":\"b3 after\"}\n"
                                .getBytes(StandardCharsets.UTF_8),
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(malformed.statusCode()).isEqualTo(400);
        JsonNode err = CompatClient.json(malformed);
        assertThat(err.get("status").asInt()).isEqualTo(400);
        assertThat(err.get("error").get("reason").asText()).contains("line 3");

        String mixed = "{\"delete\":{\"_index\":\"x\",\"_id\":\"1\"}}\n"
                + "{\"update\":{\"_index\":\"x\",\"_id\":\"2\"}}\n{\"doc\":{\"message\":\"b3 update\"}}\n"
                + "{\"create\":{\"_index\":\"x\"}}\n[1,2,3]\n"
                + "{\"create\":{\"_index\":\"x\"}}\n{\"message\":\"b3 broken json\n"
                + "{\"create\":{\"_index\":\"x\"}}\n{\"message\":\"b3 bad time\",\"@timestamp\":\"yesterday\"}\n"
                + "{\"create\":{}}\n{\"message\":\"b3 no index\"}\n"
                + "{\"create\":{\"_index\":\"x\",\"_id\":\"b3-good\"}}\n{\"message\":\"b3 good\"}\n";
        HttpResponse<byte[]> m = COMPAT.client()
                .send("POST", "/_bulk", mixed.getBytes(StandardCharsets.UTF_8), "Authorization", "Bearer " + ACME_KEY);
        assertThat(m.statusCode()).as(CompatClient.text(m)).isEqualTo(200);
        JsonNode items = CompatClient.json(m).get("items");
        assertThat(CompatClient.json(m).get("errors").asBoolean()).isTrue();
        assertThat(items).hasSize(7);
        assertThat(items.get(0).get("delete").get("status").asInt()).isEqualTo(400);
        assertThat(items.get(1).get("update").get("error").get("reason").asText())
                .contains("update is not supported");
        assertThat(items.get(2).get("create").get("error").get("reason").asText())
                .contains("not a JSON object");
        assertThat(items.get(3).get("create").get("error").get("reason").asText())
                .contains("not valid JSON");
        assertThat(items.get(4).get("create").get("error").get("reason").asText())
                .contains("event_time");
        assertThat(items.get(5).get("create").get("error").get("reason").asText())
                .contains("no _index");
        assertThat(items.get(6).get("create").get("status").asInt()).isEqualTo(201);

        // Index in the URL; still serving.
        HttpResponse<byte[]> ok = COMPAT.client()
                .send(
                        "POST",
                        "/from-url/_bulk",
                        "{\"index\":{}}\n{\"message\":\"b3 url index\"}\n".getBytes(StandardCharsets.UTF_8),
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(CompatClient.json(ok)
                        .get("items")
                        .get(0)
                        .get("index")
                        .get("_index")
                        .asText())
                .isEqualTo("from-url");
        List<JsonNode> got = records("b3 ");
        // A malformed body is refused whole, as Elasticsearch does: nothing after the bad line is read.
        assertThat(got)
                .extracting(n -> n.get("message").asText())
                .contains("b3 good", "b3 url index")
                .doesNotContain("b3 after", "b3 never");
    }
}
