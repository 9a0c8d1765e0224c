package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static dev.logpipe.collector.CollectorFixture.SLOW_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.Zstd;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.Integration;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The collector against the embedded broker: what is accepted, refused, dead-lettered and redacted. */
@Integration
class CollectorIngestTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final CollectorExtension COLLECTOR = new CollectorExtension("ingest");

    private static List<JsonNode> records(String topic) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : TopicContents.recordLines(
                TopicContents.readAll(COLLECTOR.bootstrapServers(), topic, Duration.ofSeconds(20)))) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    private static List<JsonNode> withMessagePrefix(String prefix) throws Exception {
        return records("ingest.records").stream()
                .filter(r -> r.get("message").asText().startsWith(prefix))
                .toList();
    }

    @Test
    void acceptedRecordsAreCommittedWithTheAuthenticatedTenantNeverThePayloadOne() throws Exception {
        String body = """
                {"message":"t1 one","tenant_id":"globex","service":"api","instance_id":"a-1"}
                {"message":"t1 two","tenant_id":"evil","record_id":"fixed-id-000000000000000000000000"}
                {"message":"t1 three","observed_time":"2001-01-01T00:00:00Z"}
                """;
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).isEqualTo(3);
        assertThat(answer.get("dead_lettered").asInt()).isZero();
        assertThat(answer.get("stage").asText()).isEqualTo("DURABLE_IN_BROKER");

        List<JsonNode> got = withMessagePrefix("t1 ");
        assertThat(got)
                .extracting(n -> n.get("message").asText())
                .containsExactlyInAnyOrder("t1 one", "t1 two", "t1 three");
        assertThat(got).allSatisfy(n -> {
            assertThat(n.get("tenant_id").asText()).isEqualTo("acme");
            assertThat(n.get("observed_time").asText()).doesNotStartWith("2001");
            assertThat(n.get("record_id").asText()).isNotBlank();
        });
        assertThat(got)
                .filteredOn(n -> n.get("message").asText().equals("t1 two"))
                .extracting(n -> n.get("record_id").asText())
                .containsExactly("fixed-id-000000000000000000000000");
    }

    @Test
    void plainTextLinesAreRecordsOfTheKeysTenantAndNdjsonStaysStructured() throws Exception {
        byte[] text = "t14 plain text line\n{\"not\": \"parsed\"} t14 braces\n\nt14 \"quoted\" \\ tab\there\n"
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, text, null, "text/plain; charset=utf-8");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("accepted").asInt()).as(r.body()).isEqualTo(3);
        assertThat(JSON.readTree(r.body()).get("dead_lettered").asInt()).isZero();
        // curl --data-binary sends a form by default: a line with a brace is a record, any other line a message
        byte[] form =
                "t14 from curl\n{\"message\":\"t14 a record\",\"service\":\"api\"}\n".getBytes(StandardCharsets.UTF_8);
        r = COLLECTOR.collector().post(ACME_KEY, form, null, "application/x-www-form-urlencoded");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("accepted").asInt()).as(r.body()).isEqualTo(2);
        // NDJSON stays strict: a line that is no record is a dead letter
        r = COLLECTOR.collector().post(ACME_KEY, "t14 not a record\n".getBytes(StandardCharsets.UTF_8), null, null);
        assertThat(JSON.readTree(r.body()).get("dead_lettered").asInt())
                .as(r.body())
                .isEqualTo(1);

        List<JsonNode> got = withMessagePrefix("t14 ");
        assertThat(got)
                .extracting(n -> n.get("message").asText())
                .containsExactlyInAnyOrder(
                        "t14 plain text line", "t14 \"quoted\" \\ tab\there", "t14 from curl", "t14 a record");
        assertThat(got).allSatisfy(n -> {
            assertThat(n.get("tenant_id").asText()).isEqualTo("acme");
            assertThat(n.get("record_id").asText()).isNotBlank();
        });
        // text/plain: a line is a message whatever it holds
        assertThat(withMessagePrefix("{\"not\""))
                .extracting(n -> n.get("message").asText())
                .containsExactly("{\"not\": \"parsed\"} t14 braces");
    }

    @Test
    void aRetriedRequestGetsTheSameDerivedRecordIds() throws Exception {
        String body = "{\"message\":\"t2 retry me\"}\n{\"message\":\"t2 and me\"}\n";
        assertThat(COLLECTOR.collector().post(ACME_KEY, body).statusCode()).isEqualTo(200);
        assertThat(COLLECTOR.collector().post(ACME_KEY, body).statusCode()).isEqualTo(200);
        List<JsonNode> got = withMessagePrefix("t2 ");
        assertThat(got).hasSize(4);
        assertThat(got.stream().map(n -> n.get("record_id").asText()).distinct())
                .hasSize(2);
    }

    @Test
    void withoutAValidKeyTheAnswerIs401AndNothingIsPublished() throws Exception {
        assertThat(COLLECTOR
                        .collector()
                        .post(null, "{\"message\":\"t3 no key\"}\n")
                        .statusCode())
                .isEqualTo(401);
        HttpResponse<String> wrong = COLLECTOR.collector().post("not-a-key", "{\"message\":\"t3 wrong key\"}\n");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        assertThat(withMessagePrefix("t3 ")).isEmpty();
    }

    @Test
    void invalidLinesAreDeadLetteredWithTheirReasonAndTheValidOnesAccepted() throws Exception {
        String body = "{\"message\":\"t4 good\"}\n"
                + "{not json\n"
                + "{\"level\":\"info\"}\n"
                + "{\"message\":42}\n"
                + "{\"message\":\"t4 deep\",\"fields\":" + "{\"a\":".repeat(40) + "1" + "}".repeat(40) + "}\n"
                + "[1,2,3]\n";
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).isEqualTo(1);
        assertThat(answer.get("dead_lettered").asInt()).isEqualTo(5);
        List<Integer> lines = new ArrayList<>();
        answer.get("errors").forEach(e -> {
            lines.add(e.get("line").asInt());
            assertThat(e.get("reason").asText()).isEqualTo("SCHEMA_INVALID");
            assertThat(e.get("detail").asText()).isNotBlank();
        });
        assertThat(lines).containsExactly(2, 3, 4, 5, 6);

        List<JsonNode> dead = records("ingest.dead-letter").stream()
                .filter(n -> n.path("raw").asText().contains("t4 deep")
                        || n.path("raw").asText().equals("{not json"))
                .toList();
        assertThat(dead).hasSize(2).allSatisfy(n -> {
            assertThat(n.get("reason").asText()).isEqualTo("SCHEMA_INVALID");
            assertThat(n.get("tenant_id").asText()).isEqualTo("acme");
        });
        assertThat(COLLECTOR.collector().get("/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void aRecordIdThatIsNoUrlSegmentIsDeadLetteredWithItsReasonAndAFineOneKept() throws Exception {
        String body = "{\"message\":\"t4id dots\",\"record_id\":\"..\"}\n"
                + "{\"message\":\"t4id path\",\"record_id\":\"../../v1/admin/tenants\"}\n"
                + "{\"message\":\"t4id slash\",\"record_id\":\"svc/42\"}\n"
                + "{\"message\":\"t4id fine\",\"record_id\":\"order-42:v1.2_x\"}\n";
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).isEqualTo(1);
        List<String> details = new ArrayList<>();
        answer.get("errors").forEach(e -> {
            assertThat(e.get("reason").asText()).isEqualTo("SCHEMA_INVALID");
            details.add(e.get("line").asInt() + " " + e.get("detail").asText());
        });
        assertThat(details)
                .containsExactly(
                        "1 record_id must not be only dots (a URL path step)",
                        "2 record_id may hold only letters, digits and . _ : - (character 3 is not one)",
                        "3 record_id may hold only letters, digits and . _ : - (character 4 is not one)");
        assertThat(withMessagePrefix("t4id"))
                .extracting(n -> n.get("record_id").asText())
                .containsExactly("order-42:v1.2_x");
    }

    @Test
    void secretsNeverReachTheRecordsTopic() throws Exception {
        String[] secrets = {
            "eyJhbGciOiJIUzI1NiJ9.payload.signature",
            "AKIAIOSFODNN7EXAMPLE",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
            "hunter2-very-secret",
            "4111 1111 1111 1111",
            "TKT-123456",
            "s3cr3t-field-value"
        };
        String body = "{\"message\":\"t5 call with Authorization: Bearer " + secrets[0] + "\"}\n"
                + "{\"message\":\"t5 key " + secrets[1] + " used\"}\n"
                + "{\"message\":\"t5 -----BEGIN RSA PRIVATE KEY-----\\n" + secrets[2]
                + "\\n-----END RSA PRIVATE KEY-----\"}\n"
                + "{\"message\":\"t5 login password=" + secrets[3] + " ok\"}\n"
                + "{\"message\":\"t5 paid with " + secrets[4] + " today\"}\n"
                + "{\"message\":\"t5 see " + secrets[5] + "\"}\n"
                + "{\"message\":\"t5 fields\",\"fields\":{\"db.password\":\"" + secrets[6] + "\"}}\n"
                + "{\"message\":\"t5 order 4111 1111 1111 1112 is not a card (Luhn fails)\"}\n";
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("accepted").asInt()).isEqualTo(8);

        String topic = String.join(
                "\n",
                TopicContents.recordLines(
                        TopicContents.readAll(COLLECTOR.bootstrapServers(), "ingest.records", Duration.ofSeconds(20))));
        for (String s : secrets) {
            assertThat(topic).as("the records topic never holds %s", s).doesNotContain(s);
        }
        assertThat(topic)
                .contains(
                        "[REDACTED:bearer_token]",
                        "[REDACTED:aws_access_key]",
                        "[REDACTED:private_key]",
                        "[REDACTED:secret_pair]",
                        "[REDACTED:card_number]",
                        "[REDACTED:internal_ticket]",
                        "[REDACTED:secret_field]",
                        "4111 1111 1111 1112");
        String metrics = COLLECTOR.collector().get("/metrics").body();
        assertThat(metrics).contains("logpipe_collector_redactions_total{rule=\"aws_access_key\"}");
    }

    @Test
    void aTenantOverItsRateIsRefusedWith429AndRetryAfterBeforeItsBodyIsRead() throws Exception {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            body.append("{\"message\":\"t6 ").append(i).append("\"}\n");
        }
        assertThat(COLLECTOR.collector().post(SLOW_KEY, body.toString()).statusCode())
                .isEqualTo(200); // 40 of a 20/s budget
        HttpResponse<String> refused = COLLECTOR.collector().post(SLOW_KEY, "{\"message\":\"t6 more\"}\n");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After"))
                .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 5L));
        // A client that waits for 100 Continue is answered without being asked for the body it would waste.
        try (Socket s = new Socket("127.0.0.1", COLLECTOR.collector().url("/").getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream()
                    .write(("POST /api/v1/logs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + SLOW_KEY
                                    + "\r\nExpect: 100-continue\r\nContent-Length: 25\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String status =
                    new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            assertThat(status).isEqualTo("HTTP/1.1 429 Too Many Requests");
        }
        assertThat(COLLECTOR.collector().get("/metrics").body())
                .contains("logpipe_collector_rate_limited_total{limit=\"records_per_second\",tenant=\"slow\"}");
        assertThat(COLLECTOR
                        .collector()
                        .post(ACME_KEY, "{\"message\":\"t6 other tenant\"}\n")
                        .statusCode())
                .as("another tenant is not affected")
                .isEqualTo(200);
    }

    @Test
    void bodiesOverTheCapsAreRefusedWith413() throws Exception {
        // Only the headers are sent: the answer comes before any of the announced 2 MiB is read.
        try (Socket s = new Socket("127.0.0.1", COLLECTOR.collector().url("/").getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream()
                    .write(("POST /api/v1/logs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ACME_KEY
                                    + "\r\nContent-Length: 2097152\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String status =
                    new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            assertThat(status).isEqualTo("HTTP/1.1 413 Payload Too Large");
        }
        // 8 MiB of spaces compress to a few KiB: the decoded size is capped too (a gzip bomb).
        byte[] bomb = CollectorFixture.gzip(" ".repeat(8 * 1024 * 1024));
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, bomb, "gzip");
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.body()).contains("max_decoded_bytes");
    }

    @Test
    void aHugeSingleRecordIsDeadLetteredAndItsNeighboursAccepted() throws Exception {
        String huge = "{\"message\":\"t8 " + "x".repeat(300 * 1024) + "\"}";
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, "{\"message\":\"t8 small\"}\n" + huge + "\n");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).isEqualTo(1);
        assertThat(answer.get("errors").get(0).get("reason").asText()).isEqualTo("RECORD_TOO_LARGE");
    }

    @Test
    void gzipAndZstdBodiesAreAcceptedAndBrokenOnesGet400() throws Exception {
        assertThat(COLLECTOR
                        .collector()
                        .post(ACME_KEY, CollectorFixture.gzip("{\"message\":\"t9 gz\"}\n"), "gzip")
                        .statusCode())
                .isEqualTo(200);
        byte[] zstd = Zstd.compress("{\"message\":\"t9 zstd\"}\n".getBytes(StandardCharsets.UTF_8));
        assertThat(COLLECTOR.collector().post(ACME_KEY, zstd, "zstd").statusCode())
                .isEqualTo(200);
        HttpResponse<String> broken =
                COLLECTOR.collector().post(ACME_KEY, "not gzip at all".getBytes(StandardCharsets.UTF_8), "gzip");
        assertThat(broken.statusCode()).isEqualTo(400);
        assertThat(broken.body()).contains("not valid gzip");
        assertThat(COLLECTOR.collector().post(ACME_KEY, new byte[] {1}, "br").statusCode())
                .isEqualTo(415);
        assertThat(withMessagePrefix("t9 "))
                .extracting(n -> n.get("message").asText())
                .containsExactlyInAnyOrder("t9 gz", "t9 zstd");
    }

    @Test
    void timestampsFarFromNowAreAcceptedAndFlagged() throws Exception {
        String body = "{\"message\":\"t10 future\",\"event_time\":\"2999-01-01T00:00:00Z\"}\n"
                + "{\"message\":\"t10 past\",\"event_time\":\"1999-01-01T00:00:00Z\"}\n";
        assertThat(COLLECTOR.collector().post(ACME_KEY, body).statusCode()).isEqualTo(200);
        assertThat(withMessagePrefix("t10 "))
                .extracting(n -> n.get("message").asText() + "="
                        + n.get("fields").get("logpipe.event_time.flag").asText())
                .containsExactlyInAnyOrder("t10 future=future", "t10 past=past");
    }

    @Test
    void healthAndReadinessAnswer() throws Exception {
        assertThat(COLLECTOR.collector().get("/healthz").statusCode()).isEqualTo(200);
        assertThat(COLLECTOR.collector().get("/readyz").statusCode()).isEqualTo(200);
        assertThat(COLLECTOR.collector().get("/metrics").body()).contains("logpipe_collector_requests_total");
    }

    @Test
    void aSlowClientIsCutOffByTheIdleTimeoutAndOthersAreServedMeanwhile() throws Exception {
        try (Socket s = new Socket("127.0.0.1", COLLECTOR.collector().url("/").getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream()
                    .write(("POST /api/v1/logs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ACME_KEY
                                    + "\r\nContent-Length: 100\r\n\r\n{\"message\":")
                            .getBytes(StandardCharsets.US_ASCII));
            // The rest of the body never comes; another client is served meanwhile.
            assertThat(COLLECTOR
                            .collector()
                            .post(ACME_KEY, "{\"message\":\"t11 while a slow one waits\"}\n")
                            .statusCode())
                    .isEqualTo(200);
            long t0 = System.nanoTime();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            int n;
            StringBuilder got = new StringBuilder();
            while ((n = in.read(buf)) > 0) {
                got.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
            }
            long waitedMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(waitedMs).as("closed by limits.idle_timeout (1s here)").isLessThan(8_000);
            assertThat(got.toString())
                    .as("no 200 for a body that never arrived")
                    .doesNotContain(" 200 ");
        }
    }

    @Test
    void invalidUtf8AndThousandsOfFieldsAreDeadLetteredAndSpoofingHeadersAreIgnored() throws Exception {
        StringBuilder many = new StringBuilder("{\"message\":\"t12 many\",\"fields\":{");
        for (int i = 0; i < 5000; i++) {
            many.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
        }
        many.append("}}\n");
        byte[] badUtf8 = "{\"message\":\"t12 \u00ff\"}\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = (many + new String(badUtf8, StandardCharsets.ISO_8859_1) + "{\"message\":\"t12 fine\"}\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        HttpRequest req = HttpRequest.newBuilder(COLLECTOR.collector().url("/api/v1/logs"))
                .header("Authorization", "Bearer " + ACME_KEY)
                .header("X-Tenant", "globex")
                .header("X-Tenant-Id", "globex")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        HttpResponse<String> r = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).isEqualTo(1);
        assertThat(answer.get("dead_lettered").asInt()).isEqualTo(2);
        assertThat(withMessagePrefix("t12 "))
                .extracting(n -> n.get("tenant_id").asText())
                .containsExactly("acme");
    }

    @Test
    void secretsInDeadLetteredLinesNeverReachTheDeadLetterTopicEither() throws Exception {
        String body = "{\"message\":\"t13 bad time\",\"event_time\":\"Bearer eyJsecretTokenValue\","
                + "\"fields\":{\"password\":\"hunter2-in-dlq\"}}\n"
                + "{\"message\":\"t13 x\" trailing password=\\\"p4ss-in-dlq\\\"}\n";
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("dead_lettered").asInt()).isEqualTo(2);
        assertThat(r.body()).doesNotContain("eyJsecretTokenValue");
        String dlq = String.join(
                "\n",
                TopicContents.recordLines(TopicContents.readAll(
                        COLLECTOR.bootstrapServers(), "ingest.dead-letter", Duration.ofSeconds(20))));
        assertThat(dlq).contains("t13 bad time").doesNotContain("hunter2-in-dlq", "p4ss-in-dlq", "eyJsecretTokenValue");
    }
}
