package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import dev.logpipe.testkit.Integration;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.resources.Resource;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** OTLP/HTTP logs into the real collector and broker: the OpenTelemetry Java SDK's exporter, OTLP/JSON, bad input. */
@Integration
class OtlpIngestTest {
    @RegisterExtension
    static final CollectorExtension COMPAT = new CollectorExtension("otlp");

    private static List<JsonNode> records(String prefix) throws Exception {
        return COMPAT.records(prefix);
    }

    @Test
    void theOpenTelemetrySdksOtlpHttpExporterDeliversRecordsWithTheMappedFields() throws Exception {
        for (String compression : new String[] {"none", "gzip"}) {
            OtlpHttpLogRecordExporter exporter = OtlpHttpLogRecordExporter.builder()
                    .setEndpoint("http://127.0.0.1:" + COMPAT.port() + "/v1/logs")
                    .addHeader("Authorization", "Bearer " + ACME_KEY)
                    .setCompression(compression)
                    .build();
            SdkLoggerProvider provider = SdkLoggerProvider.builder()
                    .setResource(Resource.create(Attributes.of(
                            AttributeKey.stringKey("service.name"),
                            "checkout",
                            AttributeKey.stringKey("service.instance.id"),
                            "pod-" + compression,
                            AttributeKey.stringKey("cloud.region"),
                            "eu-west-1",
                            AttributeKey.stringKey("host.name"),
                            "node-1")))
                    .addLogRecordProcessor(SimpleLogRecordProcessor.create(exporter))
                    .build();
            try {
                Logger logger = provider.get("shop.checkout");
                SpanContext span = SpanContext.create(
                        "4bf92f3577b34da6a3ce929d0e0e4736",
                        "00f067aa0ba902b7",
                        TraceFlags.getSampled(),
                        TraceState.getDefault());
                logger.logRecordBuilder()
                        .setSeverity(Severity.WARN)
                        .setSeverityText("Warning")
                        .setBody("o1 payment slow " + compression)
                        .setAttribute(AttributeKey.longKey("http.status_code"), 504L)
                        .setAttribute(AttributeKey.stringKey("order.id"), "A-17")
                        .setTimestamp(1_764_583_200_123L, TimeUnit.MILLISECONDS)
                        .setContext(Span.wrap(span).storeInContext(Context.root()))
                        .emit();
                logger.logRecordBuilder()
                        .setSeverity(Severity.ERROR2)
                        .setBody("o1 second " + compression)
                        .emit();
                assertThat(provider.forceFlush().join(20, TimeUnit.SECONDS).isSuccess())
                        .isTrue();
            } finally {
                provider.shutdown().join(10, TimeUnit.SECONDS);
            }
        }
        List<JsonNode> got = records("o1 ");
        assertThat(got).hasSize(4);
        JsonNode r = got.stream()
                .filter(n -> n.get("message").asText().equals("o1 payment slow gzip"))
                .findFirst()
                .orElseThrow();
        assertThat(r.get("tenant_id").asText()).isEqualTo("acme");
        assertThat(r.get("service").asText()).isEqualTo("checkout");
        assertThat(r.get("instance_id").asText()).isEqualTo("pod-gzip");
        assertThat(r.get("region").asText()).isEqualTo("eu-west-1");
        assertThat(r.get("level").asText()).isEqualTo("WARN");
        assertThat(r.get("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(r.get("span_id").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(r.get("event_time").asText()).isEqualTo("2025-12-01T10:00:00.123Z");
        assertThat(r.get("fields").get("http.status_code").asLong()).isEqualTo(504);
        assertThat(r.get("fields").get("order.id").asText()).isEqualTo("A-17");
        assertThat(r.get("fields").get("resource.host.name").asText()).isEqualTo("node-1");
        assertThat(r.get("fields").get("otel.scope.name").asText()).isEqualTo("shop.checkout");
        assertThat(r.get("fields").get("otel.severity_text").asText()).isEqualTo("Warning");
        assertThat(got)
                .filteredOn(n -> n.get("message").asText().startsWith("o1 second"))
                .allSatisfy(n -> assertThat(n.get("level").asText()).isEqualTo("ERROR"));
    }

    @Test
    void otlpJsonIsAcceptedWithIdsInHexAndInt64AsStrings() throws Exception {
        String body = """
                {"resourceLogs":[{"scopeLogs":[{"scope":{"name":"my.library","version":"1.0.0"},
                  "logRecords":[{"timeUnixNano":"1764583200000000000","observedTimeUnixNano":"1764583201000000000",
                    "severityNumber":10,"severityText":"Information","traceId":"5b8efff798038103d269b633813fc60c",
                    "spanId":"eee19b7ec3c1b174","body":{"stringValue":"o2 Example log record"},
                    "attributes":[{"key":"string.attribute","value":{"stringValue":"some string"}},
                      {"key":"int.attribute","value":{"intValue":"10"}},
                      {"key":"map.attribute","value":{"kvlistValue":{"values":[{"key":"some.map.key",
                        "value":{"stringValue":"some value"}}]}}}]},
                   {"severityNumber":"SEVERITY_NUMBER_ERROR","body":{"kvlistValue":{"values":[{"key":"k",
                     "value":{"stringValue":"o2 v"}}]}}}]}],
                  "resource":{"attributes":[{"key":"service.name","value":{"stringValue":"my.service"}}]}}]}
                """;
        HttpResponse<byte[]> r = COMPAT.client()
                .send(
                        "POST",
                        "/v1/logs",
                        body.getBytes(StandardCharsets.UTF_8),
                        "Content-Type",
                        "application/json",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(r.statusCode()).as(CompatClient.text(r)).isEqualTo(200);
        assertThat(CompatClient.json(r).has("partialSuccess")).isFalse();
        List<JsonNode> all = COMPAT.allRecords();
        JsonNode first = all.stream()
                .filter(n -> n.get("message").asText().equals("o2 Example log record"))
                .findFirst()
                .orElseThrow();
        // The resource follows scopeLogs in this body: it still applies.
        assertThat(first.get("service").asText()).isEqualTo("my.service");
        assertThat(first.get("level").asText()).isEqualTo("INFO");
        assertThat(first.get("trace_id").asText()).isEqualTo("5b8efff798038103d269b633813fc60c");
        assertThat(first.get("event_time").asText()).isEqualTo("2025-12-01T10:00:00.000Z");
        assertThat(first.get("fields").get("int.attribute").asLong()).isEqualTo(10);
        assertThat(first.get("fields").get("map.attribute.some.map.key").asText())
                .isEqualTo("some value");
        assertThat(first.get("fields").get("otel.scope.version").asText()).isEqualTo("1.0.0");
        assertThat(all).anySatisfy(n -> {
            assertThat(n.get("message").asText()).isEqualTo("{\"k\":\"o2 v\"}");
            assertThat(n.get("level").asText()).isEqualTo("ERROR");
        });
    }

    @Test
    void aRejectedRecordIsReportedAsPartialSuccessInProtobufAndTheOthersAreTaken() throws Exception {
        byte[] good = logRecord("o3 good", "x");
        byte[] bad = logRecord("o3 bad", "x".repeat(300)); // a trace id of 600 hex digits: over 256 characters
        HttpResponse<byte[]> r = COMPAT.client()
                .send(
                        "POST",
                        "/v1/logs",
                        request(good, bad),
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(r.statusCode()).isEqualTo(200);
        CodedInputStream in = CodedInputStream.newInstance(r.body());
        assertThat(in.readTag() >>> 3).isEqualTo(1);
        CodedInputStream partial = in.readBytes().newCodedInput();
        assertThat(partial.readTag() >>> 3).isEqualTo(1);
        assertThat(partial.readInt64()).isEqualTo(1);
        assertThat(partial.readTag() >>> 3).isEqualTo(2);
        assertThat(partial.readStringRequireUtf8()).contains("record 2").contains("trace_id");
        assertThat(records("o3 ")).extracting(n -> n.get("message").asText()).containsExactly("o3 good");
    }

    @Test
    void badOtlpInputGetsAStatusInTheRequestsEncodingAndTheCollectorKeepsServing() throws Exception {
        HttpResponse<byte[]> garbage = COMPAT.client()
                .send(
                        "POST",
                        "/v1/logs",
                        new byte[] {0x0a, 0x7f, 1, 2, 3},
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(garbage.statusCode()).isEqualTo(400);
        CodedInputStream status = CodedInputStream.newInstance(garbage.body());
        assertThat(status.readTag()).isEqualTo(8);
        assertThat(status.readInt32()).isEqualTo(3); // INVALID_ARGUMENT
        assertThat(status.readTag() >>> 3).isEqualTo(2);
        assertThat(status.readStringRequireUtf8()).contains("not a valid OTLP");

        HttpResponse<byte[]> json = COMPAT.client()
                .send(
                        "POST",
                        "/v1/logs",
                        "{\"resourceLogs\":[".getBytes(),
                        "Content-Type",
                        "application/json",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(json.statusCode()).isEqualTo(400);
        assertThat(CompatClient.json(json).get("code").asInt()).isEqualTo(3);

        HttpResponse<byte[]> noKey = COMPAT.client()
                .send(
                        "POST",
                        "/v1/logs",
                        request(logRecord("o4 never", "x")),
                        "Content-Type",
                        "application/x-protobuf");
        assertThat(noKey.statusCode()).isEqualTo(401);
        assertThat(COMPAT.client()
                        .send(
                                "POST",
                                "/v1/logs",
                                "x".getBytes(),
                                "Content-Type",
                                "text/plain",
                                "Authorization",
                                "Bearer " + ACME_KEY)
                        .statusCode())
                .isEqualTo(415);

        HttpResponse<byte[]> ok = COMPAT.client()
                .send(
                        "POST",
                        "/v1/logs",
                        request(logRecord("o4 still serving", "x")),
                        "Content-Type",
                        "application/x-protobuf",
                        "Authorization",
                        "Bearer " + ACME_KEY);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).isEmpty();
        assertThat(records("o4 ")).extracting(n -> n.get("message").asText()).containsExactly("o4 still serving");
    }

    /** A LogRecord (opentelemetry/proto/logs/v1/logs.proto) with a string body and a trace id of hex digits. */
    static byte[] logRecord(String body, String traceIdBytes) throws Exception {
        byte[] anyValue = proto(o -> o.writeString(1, body));
        return proto(o -> {
            o.writeFixed64(1, 1_764_583_200_000_000_000L);
            o.writeEnum(2, 9);
            o.writeByteArray(5, anyValue);
            o.writeByteArray(9, traceIdBytes.getBytes(StandardCharsets.US_ASCII));
        });
    }

    /** An ExportLogsServiceRequest with one resource (service.name=proto-svc), one scope, these records. */
    static byte[] request(byte[]... logRecords) throws Exception {
        byte[] kv = proto(o -> {
            o.writeString(1, "service.name");
            o.writeByteArray(2, proto(v -> v.writeString(1, "proto-svc")));
        });
        byte[] resource = proto(o -> o.writeByteArray(1, kv));
        byte[] scopeLogs = proto(o -> {
            for (byte[] r : logRecords) {
                o.writeByteArray(2, r);
            }
        });
        byte[] resourceLogs = proto(o -> {
            o.writeByteArray(1, resource);
            o.writeByteArray(2, scopeLogs);
        });
        return proto(o -> o.writeByteArray(1, resourceLogs));
    }

    interface ProtoWriter {
        void write(CodedOutputStream out) throws Exception;
    }

    static byte[] proto(ProtoWriter w) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        w.write(out);
        out.flush();
        return bytes.toByteArray();
    }
}
