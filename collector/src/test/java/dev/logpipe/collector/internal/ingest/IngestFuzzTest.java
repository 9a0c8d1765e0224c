package dev.logpipe.collector.internal.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.collector.internal.admission.TenantLimits;
import dev.logpipe.collector.internal.redact.Redactor;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordRules;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The decoder and the per-line processing on arbitrary input: nothing but a reasoned rejection ever comes out,
 * and every non-blank line is accounted for, either accepted or dead-lettered with a reason.
 */
class IngestFuzzTest {
    private static final CollectorConfig CONFIG;

    static {
        try {
            CONFIG = new CollectorConfigLoader().parse("""
                    limits:
                      max_record_bytes: 4KiB
                    tenants:
                      - id: acme
                        api_key_sha256: ['0000000000000000000000000000000000000000000000000000000000000000']
                    kafka:
                      bootstrap_servers: 127.0.0.1:9
                      replication_factor: 1
                      min_insync_replicas: 1
                    redaction:
                      max_scan_bytes: 2KiB
                    """, "test");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Room for a record of 1,000 fields. */
    private static final CollectorConfig ROOMY;

    static {
        try {
            ROOMY = new CollectorConfigLoader().parse("""
                    limits:
                      max_record_bytes: 1MiB
                    tenants:
                      - id: acme
                        api_key_sha256: ['0000000000000000000000000000000000000000000000000000000000000000']
                    kafka:
                      bootstrap_servers: 127.0.0.1:9
                      replication_factor: 1
                      min_insync_replicas: 1
                    """, "test");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private final IngestProcessor processor = new IngestProcessor(CONFIG, new Redactor(CONFIG.redaction()));
    private final CollectorConfig.Tenant tenant = CONFIG.tenants().get(0);

    @Provide
    Arbitrary<byte[]> bodies() {
        Arbitrary<String> fragments = Arbitraries.of(
                "{",
                "}",
                "[",
                "]",
                "\"",
                ":",
                ",",
                "\n",
                "\\",
                "\\u0000",
                "\"message\"",
                "\"fields\"",
                "\"event_time\"",
                "\"level\"",
                "\"tenant_id\"",
                "null",
                "true",
                "1e999",
                "-0",
                "\"2026-13-45T99:99:99Z\"",
                "\"x\"",
                "password=",
                "Bearer abcdefghijk",
                "4111111111111111",
                "\uD83D\uDE00",
                "\uD800",
                " ",
                "\r");
        Arbitrary<byte[]> structured =
                fragments.list().ofMaxSize(200).map(l -> String.join("", l).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> raw = Arbitraries.bytes().array(byte[].class).ofMaxSize(3000);
        return Arbitraries.oneOf(structured, raw);
    }

    @Property(tries = 400)
    void everyNonBlankLineIsAcceptedOrDeadLetteredAndNothingThrows(@ForAll("bodies") byte[] body) throws Exception {
        CollectingOutlet outlet = new CollectingOutlet();
        IngestRun.Outcome o = new IngestRun(processor)
                .run(
                        tenant,
                        new ByteArrayInputStream(body),
                        Instant.parse("2026-12-01T00:00:00Z"),
                        new IngestRun.Allowance(TenantLimits.Charge.unlimited(), 0, total -> true),
                        outlet);
        IngestResult r = o.result();
        long lines = nonBlankLines(body);
        assertThat(o.stop()).isEqualTo(IngestRun.Stop.COMPLETE);
        assertThat(r.accepted() + r.deadLettered()).isEqualTo(lines);
        assertThat(outlet.deadLetters).hasSize(r.deadLettered());
        assertThat(r.errors()).allSatisfy(d -> assertThat(d.detail()).isNotBlank());
        assertThat(outlet.recordCount()).isEqualTo(r.accepted());
        assertThat(outlet.awaited).isEqualTo(1);
    }

    @Property(tries = 200)
    void theDecoderRejectsGarbageWithAStatusNeverAnUnexpectedException(
            @ForAll("bodies") byte[] body, @ForAll("encodings") String encoding) throws Exception {
        BodyDecoder decoder = new BodyDecoder(1 << 20, 1 << 22);
        try (InputStream in = decoder.open(new ByteArrayInputStream(body), encoding, n -> true)) {
            in.readAllBytes();
        } catch (BodyException e) {
            assertThat(e.status()).isIn(400, 413, 415);
            assertThat(e.getMessage()).isNotBlank();
        } catch (IOException e) {
            // a failed read of the connection: answered 400 by the handler
            assertThat(e.getMessage()).isNotNull();
        }
    }

    @Provide
    Arbitrary<String> encodings() {
        return Arbitraries.of("gzip", "zstd", "identity", "deflate");
    }

    private static long nonBlankLines(byte[] body) {
        String[] lines = new String(body, StandardCharsets.ISO_8859_1).split("\n", -1);
        return List.of(lines).stream()
                .map(l -> l.endsWith("\r") ? l.substring(0, l.length() - 1) : l)
                .filter(l -> !l.isEmpty() && !l.chars().allMatch(c -> c == ' ' || c == '\t'))
                .count();
    }

    @Example
    void theDerivedIdOfALineIsPinnedAcrossReleases() throws Exception {
        CollectingOutlet outlet = new CollectingOutlet();
        byte[] body = "{\"message\":\"hello\"}\n{\"message\":\"hello\"}\n".getBytes(StandardCharsets.UTF_8);
        new IngestRun(processor)
                .run(
                        tenant,
                        new ByteArrayInputStream(body),
                        Instant.parse("2026-12-01T00:00:00Z"),
                        new IngestRun.Allowance(TenantLimits.Charge.unlimited(), 0, total -> true),
                        outlet);
        String all = String.join(
                "\n", outlet.records.stream().flatMap(m -> m.lines().stream()).toList());
        // RecordIdContractTest pins the same values in the record module: tenant acme, lines 1 and 2.
        assertThat(all)
                .contains("\"record_id\":\"538f9b39d0f9a1a8503dc8a84a465fe3\"")
                .contains("\"record_id\":\"834644b1571cac73930b455400b3531f\"");
    }

    /** Record-shaped lines with the values that sit on the rules' edges: times, sizes, names, numbers. */
    @Provide
    Arbitrary<byte[]> recordLines() {
        Arbitrary<String> times = Arbitraries.of(
                "2026-12-01T00:00:00Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999999Z",
                "0000-01-01T00:00:00+01:00",
                "9999-12-31T23:00:00-01:00",
                "-000001-01-01T00:00:00Z",
                "+100000-01-01T00:00:00Z",
                "+10000-01-01T00:00:00Z",
                "2099-01-01T00:00:00Z");
        Arbitrary<String> names = Arbitraries.of(
                "a", "a.b", "tc.x", "n".repeat(1000) + "AKIAIOSFODNN7EXAMPLE", "x".repeat(1024), "password", "");
        Arbitrary<String> values = Arbitraries.of(
                "1",
                "123456789012345678901234567890",
                "-98765432109876543210",
                "1e400",
                "\"v\"",
                "{\"x\":1}",
                "{\"b\":{\"c\":2}}",
                "null",
                "[1,2]",
                "4111111111111111");
        Arbitrary<String> field = Arbitraries.lazy(() -> names).flatMap(n -> values.map(v -> "\"" + n + "\":" + v));
        Arbitrary<String> line = Arbitraries.integers()
                .between(0, 1003)
                .flatMap(many -> times.flatMap(t -> field.list().ofMaxSize(6).map(fs -> {
                    StringBuilder b = new StringBuilder("{\"message\":\"m\",\"event_time\":\"" + t + "\",\"fields\":{");
                    b.append(String.join(",", fs));
                    for (int i = 0; i < (many > 990 ? many : 0); i++) {
                        b.append(b.charAt(b.length() - 1) == '{' ? "" : ",")
                                .append("\"f")
                                .append(i)
                                .append("\":")
                                .append(i);
                    }
                    return b.append("}}").toString();
                })));
        return line.list()
                .ofMinSize(1)
                .ofMaxSize(4)
                .map(l -> (String.join("\n", l) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    @Property(tries = 300)
    void everyRecordTheCollectorTakesIsOneTheIndexerCanRead(@ForAll("recordLines") byte[] body) throws Exception {
        CollectingOutlet outlet = new CollectingOutlet();
        IngestRun.Outcome o = new IngestRun(new IngestProcessor(ROOMY, new Redactor(ROOMY.redaction())))
                .run(
                        ROOMY.tenants().get(0),
                        new ByteArrayInputStream(body),
                        Instant.parse("2026-12-01T00:00:00Z"),
                        new IngestRun.Allowance(TenantLimits.Charge.unlimited(), 0, total -> true),
                        outlet);
        assertThat(o.result().accepted() + o.result().deadLettered()).isEqualTo(nonBlankLines(body));
        RecordCodec codec = new RecordCodec();
        for (CollectingOutlet.Message m : outlet.records) {
            assertThat(m.tenant()).isEqualTo("acme");
            for (String l : m.lines()) {
                LogRecord r = codec.decode(l.getBytes(StandardCharsets.UTF_8)); // the indexer's read
                assertThat(RecordRules.problem(r)).as(l).isNull();
                assertThat(codec.decode(codec.encode(r))).isEqualTo(r);
            }
        }
    }
}
