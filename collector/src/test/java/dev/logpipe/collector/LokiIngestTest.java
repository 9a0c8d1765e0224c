package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static dev.logpipe.collector.OtlpIngestTest.proto;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.xerial.snappy.Snappy;

/** Loki push into the real collector and broker: snappy protobuf built from Loki's push.proto, JSON, bad input. */
@Integration
class LokiIngestTest {
    @RegisterExtension
    static final CollectorExtension COMPAT = new CollectorExtension("loki");

    private static List<JsonNode> records(String prefix) throws Exception {
        return COMPAT.records(prefix);
    }

    /** An EntryAdapter: timestamp {seconds, nanos}, line, structured metadata pairs (name, value, ...). */
    static byte[] entry(long seconds, int nanos, String line, String... metadata) throws Exception {
        byte[] ts = proto(o -> {
            o.writeInt64(1, seconds);
            o.writeInt32(2, nanos);
        });
        return proto(o -> {
            o.writeByteArray(1, ts);
            o.writeString(2, line);
            for (int i = 0; i < metadata.length; i += 2) {
                String name = metadata[i];
                String value = metadata[i + 1];
                o.writeByteArray(3, proto(p -> {
                    p.writeString(1, name);
                    p.writeString(2, value);
                }));
            }
        });
    }

    /** A PushRequest of one StreamAdapter (labels in Prometheus text form, entries), snappy-compressed. */
    static byte[] push(String labels, byte[]... entries) throws Exception {
        byte[] stream = proto(o -> {
            for (byte[] e : entries) {
                o.writeByteArray(2, e); // entries before labels: the decoder must not care
            }
            o.writeString(1, labels);
        });
        return Snappy.compress(proto(o -> o.writeByteArray(1, stream)));
    }

    private static String basic() {
        return "Basic " + Base64.getEncoder().encodeToString(("12345:" + ACME_KEY).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aSnappyProtobufPushAsPromtailAndAlloySendItIsTakenWithLabelsMapped() throws Exception {
        byte[] body = push(
                "{service_name=\"checkout\", level=\"warn\", instance=\"pod-3\", job=\"shop/checkout\", "
                        + "filename=\"/var/log/app.log\"}",
                entry(
                        1_764_583_200L,
                        123_000_000,
                        "l1 first line",
                        "trace_id",
                        "4bf92f3577b34da6a3ce929d0e0e4736",
                        "user_id",
                        "u-17"),
                entry(1_764_583_201L, 0, "l1 second line"));
        HttpResponse<byte[]> r = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        body,
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        basic(),
                        "User-Agent",
                        "promtail/3.0.0");
        assertThat(r.statusCode()).as(CompatClient.text(r)).isEqualTo(204);
        List<JsonNode> got = records("l1 ");
        assertThat(got).hasSize(2);
        JsonNode first = got.stream()
                .filter(n -> n.get("message").asText().equals("l1 first line"))
                .findFirst()
                .orElseThrow();
        assertThat(first.get("tenant_id").asText()).isEqualTo("acme");
        assertThat(first.get("service").asText()).isEqualTo("checkout");
        assertThat(first.get("level").asText()).isEqualTo("WARN");
        assertThat(first.get("instance_id").asText()).isEqualTo("pod-3");
        assertThat(first.get("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(first.get("event_time").asText()).isEqualTo("2025-12-01T10:00:00.123Z");
        assertThat(first.get("fields").get("job").asText()).isEqualTo("shop/checkout");
        assertThat(first.get("fields").get("filename").asText()).isEqualTo("/var/log/app.log");
        assertThat(first.get("fields").get("user_id").asText()).isEqualTo("u-17");
    }

    @Test
    void aJsonPushIsTakenWithStructuredMetadataKept() throws Exception {
        String body = """
                {"streams":[{"stream":{"service":"billing","detected_level":"error","env":"prod"},
                  "values":[["1764583200000000001","l2 json line",{"span_id":"00f067aa0ba902b7","order":"A-9"}],
                            ["1764583200000000002","l2 plain line"]]}]}
                """;
        HttpResponse<byte[]> r = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        CollectorFixture.gzip(body),
                        "Content-Type",
                        "application/json",
                        "Content-Encoding",
                        "gzip",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(r.statusCode()).as(CompatClient.text(r)).isEqualTo(204);
        List<JsonNode> got = records("l2 ");
        assertThat(got).hasSize(2).allSatisfy(n -> {
            assertThat(n.get("service").asText()).isEqualTo("billing");
            assertThat(n.get("level").asText()).isEqualTo("ERROR");
            assertThat(n.get("fields").get("env").asText()).isEqualTo("prod");
        });
        JsonNode meta = got.stream()
                .filter(n -> n.get("message").asText().equals("l2 json line"))
                .findFirst()
                .orElseThrow();
        assertThat(meta.get("span_id").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(meta.get("fields").get("order").asText()).isEqualTo("A-9");
        assertThat(meta.get("event_time").asText()).isEqualTo("2025-12-01T10:00:00.000000001Z");
    }

    @Test
    void aSnappyBombIsRefusedFromItsHeaderBeforeAnythingIsAllocated() throws Exception {
        // A snappy block whose header claims 2 GiB - 1: refused on the header alone.
        byte[] bomb = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00, 0x61};
        HttpResponse<byte[]> r = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        bomb,
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(CompatClient.text(r)).contains("max_decoded_bytes");
        // A real block of 16 MiB of zeros (small on the wire): over the 4 MiB cap.
        HttpResponse<byte[]> zeros = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        Snappy.compress(new byte[16 << 20]),
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(zeros.statusCode()).isEqualTo(413);
    }

    @Test
    void badPushesGetA400WithTheReasonAndTheCollectorKeepsServing() throws Exception {
        HttpResponse<byte[]> notSnappy = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        "garbage".getBytes(),
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(notSnappy.statusCode()).isEqualTo(400);
        assertThat(CompatClient.text(notSnappy)).contains("snappy");

        HttpResponse<byte[]> badLabels = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        push("{job=unquoted}", entry(1_764_583_200L, 0, "l3 bad labels")),
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(badLabels.statusCode()).isEqualTo(400);
        assertThat(CompatClient.text(badLabels))
                .contains("1 of 1 entries were rejected")
                .contains("stream labels");

        String mixed = """
                {"streams":[{"stream":{"job":"x"},"values":[["not-a-number","l3 bad ts"],["1764583200000000000","l3 ok"]]}]}
                """;
        HttpResponse<byte[]> partial = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        mixed.getBytes(StandardCharsets.UTF_8),
                        "Content-Type",
                        "application/json",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(partial.statusCode()).isEqualTo(400);
        assertThat(CompatClient.text(partial))
                .contains("1 of 2 entries were rejected")
                .contains("the other 1 were taken");

        assertThat(COMPAT.client()
                        .send(
                                "POST",
                                "/loki/api/v1/push",
                                "{\"streams\":[".getBytes(),
                                "Content-Type",
                                "application/json",
                                "Authorization",
                                "Bearer " + ACME_KEY)
                        .statusCode())
                .isEqualTo(400);
        assertThat(COMPAT.client()
                        .send(
                                "POST",
                                "/loki/api/v1/push",
                                push("{a=\"b\"}", entry(1, 0, "l3 no key")),
                                "Content-Type",
                                "application/x-protobuf")
                        .statusCode())
                .isEqualTo(401);

        HttpResponse<byte[]> ok = COMPAT.client()
                .send(
                        "POST",
                        "/loki/api/v1/push",
                        push("{a=\"b\"}", entry(1_764_583_200L, 0, "l3 still serving")),
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(ok.statusCode()).isEqualTo(204);
        assertThat(records("l3 "))
                .extracting(n -> n.get("message").asText())
                .containsExactlyInAnyOrder("l3 ok", "l3 still serving");
        assertThat(COMPAT.deadLetters())
                .anySatisfy(d -> assertThat(d.get("raw").asText()).contains("l3 bad labels"));
    }
}
