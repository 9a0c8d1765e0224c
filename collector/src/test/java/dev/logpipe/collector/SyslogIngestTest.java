package dev.logpipe.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.config.ConfigException;
import dev.logpipe.testkit.Integration;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Syslog listeners of the real collector, fed by util-linux {@code logger} processes and raw sockets. */
@Integration
class SyslogIngestTest {
    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    private static CollectorFixture collector;

    @BeforeAll
    static void start() throws Exception {
        collector = CollectorFixture.start(KAFKA.bootstrapServers(), "syslog", """
                syslog:
                  listeners:
                    - protocol: tcp
                      listen: 127.0.0.1:0
                      tenant: acme
                    - protocol: udp
                      listen: 127.0.0.1:0
                      tenant: acme
                    - protocol: tcp
                      listen: 127.0.0.1:0
                      tenant: globex
                      max_message_bytes: 1KiB
                    - protocol: tcp
                      listen: 127.0.0.1:0
                      tenant: globex
                      max_connections: 2
                    - protocol: tcp
                      listen: 127.0.0.1:0
                      tenant: burst
                """);
    }

    @AfterAll
    static void stop() throws Exception {
        collector.close();
    }

    private static List<JsonNode> records(String prefix) throws Exception {
        return CompatClient.withMessagePrefix(KAFKA.bootstrapServers(), "syslog.records", prefix);
    }

    private static void logger(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("logger", "-n", "127.0.0.1"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as(new String(p.getInputStream().readAllBytes()))
                .isZero();
    }

    private static List<JsonNode> await(String prefix, int n) {
        return Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> records(prefix), l -> l.size() >= n);
    }

    @Test
    void loggerOverTcpAndUdpInBothFormatsAndFramingsReachesTheTopicWithTheMappedFields() throws Exception {
        String tcp = Integer.toString(collector.syslogPort(0));
        String udp = Integer.toString(collector.syslogPort(1));
        logger(
                "--tcp",
                "-P",
                tcp,
                "--rfc5424",
                "-t",
                "shop",
                "-p",
                "local0.warning",
                "--msgid",
                "ORDER",
                "--sd-id",
                "order@32473",
                "--sd-param",
                "id=\"A-17\"",
                "s1 rfc5424 newline framed");
        logger("--tcp", "-P", tcp, "--rfc5424", "--octet-count", "-t", "shop", "-p", "user.err", "s1 octet counted");
        logger("--tcp", "-P", tcp, "--rfc3164", "-t", "cron", "-p", "cron.info", "s1 rfc3164 over tcp");
        logger("--udp", "-P", udp, "--rfc5424", "-t", "dns", "-p", "daemon.debug", "s1 rfc5424 over udp");
        logger("--udp", "-P", udp, "--rfc3164", "-t", "dns", "-p", "daemon.notice", "s1 rfc3164 over udp");
        List<JsonNode> got = await("s1 ", 5);
        assertThat(got).hasSize(5).allSatisfy(n -> {
            assertThat(n.get("tenant_id").asText()).isEqualTo("acme");
            assertThat(n.get("instance_id").asText()).isNotBlank();
            assertThat(n.get("event_time").asText()).isNotBlank();
        });
        JsonNode first = got.stream()
                .filter(n -> n.get("message").asText().equals("s1 rfc5424 newline framed"))
                .findFirst()
                .orElseThrow();
        assertThat(first.get("service").asText()).isEqualTo("shop");
        assertThat(first.get("level").asText()).isEqualTo("WARN");
        assertThat(first.get("fields").get("syslog.facility").asText()).isEqualTo("local0");
        assertThat(first.get("fields").get("syslog.msgid").asText()).isEqualTo("ORDER");
        assertThat(first.get("fields").get("sd.order@32473.id").asText()).isEqualTo("A-17");
        assertThat(got)
                .filteredOn(n -> n.get("message").asText().equals("s1 octet counted"))
                .extracting(n -> n.get("level").asText())
                .containsExactly("ERROR");
        JsonNode bsd = got.stream()
                .filter(n -> n.get("message").asText().equals("s1 rfc3164 over tcp"))
                .findFirst()
                .orElseThrow();
        assertThat(bsd.get("service").asText()).isEqualTo("cron");
        assertThat(bsd.get("fields").get("syslog.facility").asText()).isEqualTo("cron");
        assertThat(got)
                .filteredOn(n -> n.get("message").asText().equals("s1 rfc5424 over udp"))
                .extracting(n -> n.get("level").asText())
                .containsExactly("DEBUG");
    }

    @Test
    void garbageAndOverlongMessagesAreDeadLetteredTheTenantIsTheListenersAndItKeepsServing() throws Exception {
        try (Socket s = new Socket("127.0.0.1", collector.syslogPort(2))) {
            OutputStream out = s.getOutputStream();
            out.write(("no priority here s2 garbage\n"
                            + "<999>1 - - - - - - s2 bad pri\n"
                            + "<14>1 2026-12-01T10:00:00Z web-1 api - - - s2 " + "x".repeat(2000) + "\n"
                            + "<14>1 2026-12-01T10:00:00.5Z web-1 api 42 - - s2 fine after the bad ones\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            List<JsonNode> got = await("s2 ", 1);
            assertThat(got).hasSize(1);
            assertThat(got.get(0).get("tenant_id").asText()).isEqualTo("globex");
            assertThat(got.get(0).get("fields").get("syslog.procid").asText()).isEqualTo("42");
            assertThat(got.get(0).get("event_time").asText()).isEqualTo("2026-12-01T10:00:00.500Z");
            List<JsonNode> dead = Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(
                            () -> CompatClient.deadLetters(KAFKA.bootstrapServers(), "syslog.dead-letter"),
                            l -> l.size() >= 3);
            assertThat(dead).extracting(d -> d.get("reason").asText()).contains("SCHEMA_INVALID", "RECORD_TOO_LARGE");
            assertThat(dead)
                    .anySatisfy(d -> assertThat(d.get("detail").asText()).contains("<PRI>"));
            // the same connection still serves
            out.write("<13>1 - web-1 api - - - s2 same connection later\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            await("s2 same connection", 1);
        }
    }

    @Test
    void connectionsBeyondTheCapAreClosedAtOnceAndTheOthersKeepServing() throws Exception {
        int port = collector.syslogPort(3);
        try (Socket a = new Socket("127.0.0.1", port);
                Socket b = new Socket("127.0.0.1", port)) {
            a.getOutputStream().write("<13>1 - h a - - - s3 from a\n".getBytes(StandardCharsets.UTF_8));
            b.getOutputStream().write("<13>1 - h b - - - s3 from b\n".getBytes(StandardCharsets.UTF_8));
            await("s3 ", 2);
            try (Socket c = new Socket("127.0.0.1", port)) {
                c.setSoTimeout(10_000);
                assertThat(c.getInputStream().read())
                        .as("closed by the collector")
                        .isEqualTo(-1);
            }
            a.getOutputStream().write("<13>1 - h a - - - s3 a again\n".getBytes(StandardCharsets.UTF_8));
            await("s3 a again", 1);
        }
    }

    @Test
    void aRateLimitedTenantsConnectionIsPushedBackAndResentNotDropped() throws Exception {
        // Tenant burst: 10 records/s, burst 1 s. The first batch may finish in debt; the next is refused (429)
        // until the debt is paid: the connection waits and resends, nothing is dropped or duplicated.
        try (Socket s = new Socket("127.0.0.1", collector.syslogPort(4))) {
            OutputStream out = s.getOutputStream();
            StringBuilder first = new StringBuilder();
            for (int i = 0; i < 40; i++) {
                first.append("<14>1 - h app - - - s4 first ").append(i).append('\n');
            }
            out.write(first.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            await("s4 first", 40);
            StringBuilder second = new StringBuilder();
            for (int i = 0; i < 10; i++) {
                second.append("<14>1 - h app - - - s4 second ").append(i).append('\n');
            }
            out.write(second.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            List<JsonNode> got = Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> records("s4 "), l -> l.size() >= 50);
            assertThat(got)
                    .extracting(n -> n.get("message").asText())
                    .doesNotHaveDuplicates()
                    .hasSize(50);
            assertThat(got)
                    .allSatisfy(n -> assertThat(n.get("tenant_id").asText()).isEqualTo("burst"));
        }
        String metrics = collector.get("/metrics").body();
        assertThat(metrics.lines()
                        .filter(l ->
                                l.startsWith("logpipe_collector_rate_limited_total") && l.contains("tenant=\"burst\""))
                        .findFirst())
                .as("the second batch was refused at least once")
                .isPresent();
        assertThat(metrics).doesNotContain("logpipe_collector_syslog_dropped_total");
    }

    @Test
    void invalidSyslogConfigurationFailsNamingTheKeyPath() {
        String base = """
                tenants:
                  - id: acme
                    api_key_sha256: ['%s']
                kafka:
                  bootstrap_servers: 127.0.0.1:9092
                syslog:
                  listeners:
                """.formatted("0".repeat(64));
        assertThatThrownBy(() -> new CollectorConfigLoader().parse(base + """
                    - protocol: tcp
                      listen: 127.0.0.1:0
                      tenant: nobody
                """, "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("syslog.listeners[0].tenant");
        assertThatThrownBy(() -> new CollectorConfigLoader().parse(base + """
                    - protocol: sctp
                      listen: 127.0.0.1:0
                      tenant: acme
                """, "test"))
                .hasMessageContaining("syslog.listeners[0].protocol");
        assertThatThrownBy(() -> new CollectorConfigLoader().parse(base + """
                    - protocol: udp
                      listen: 127.0.0.1:0
                      tenant: acme
                      framing: weird
                """, "test"))
                .hasMessageContaining("syslog.listeners[0].framing");
        assertThatThrownBy(() -> new CollectorConfigLoader().parse(base + """
                    - protocol: tcp
                      listen: 127.0.0.1:0
                """, "test"))
                .hasMessageContaining("syslog.listeners[0].tenant");
    }
}
