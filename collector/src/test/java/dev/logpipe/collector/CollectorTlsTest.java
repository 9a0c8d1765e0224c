package dev.logpipe.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.testkit.Integration;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS with client certificates (docs/collector.md, invariant I4 of docs/architecture.md): certificates made with keytool (a test CA signs the
 * server's and a client's), the tenant of a request is the one its certificate's subject maps to, whatever the
 * payload says; without a certificate an API key still works; with neither the answer is 401.
 */
@Integration
class CollectorTlsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PW = "changeit";
    private static final String GLOBEX_KEY = "globex-key-over-tls";

    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @TempDir
    static Path dir;

    private static Collector collector;
    private static SSLContext withClientCert;
    private static SSLContext withoutClientCert;

    @BeforeAll
    static void start() throws Exception {
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-dname",
                "CN=logpipe test CA",
                "-ext",
                "bc:c",
                "-keyalg",
                "EC",
                "-validity",
                "2",
                "-keystore",
                "ca.p12");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-file", "ca.pem");
        for (String[] who : new String[][] {
            {"server", "CN=localhost", "san=ip:127.0.0.1,dns:localhost"},
            {"client", "CN=acme-forwarder,O=Acme", null}
        }) {
            String ks = who[0] + ".p12";
            keytool(
                    "-genkeypair",
                    "-alias",
                    who[0],
                    "-dname",
                    who[1],
                    "-keyalg",
                    "EC",
                    "-validity",
                    "2",
                    "-keystore",
                    ks);
            keytool("-certreq", "-alias", who[0], "-keystore", ks, "-file", who[0] + ".csr");
            List<String> gencert = new ArrayList<>(List.of(
                    "-gencert",
                    "-alias",
                    "ca",
                    "-keystore",
                    "ca.p12",
                    "-infile",
                    who[0] + ".csr",
                    "-outfile",
                    who[0] + ".pem",
                    "-rfc",
                    "-validity",
                    "2"));
            if (who[2] != null) {
                gencert.addAll(List.of("-ext", who[2]));
            }
            keytool(gencert.toArray(String[]::new));
            keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", ks);
            keytool("-importcert", "-alias", who[0], "-file", who[0] + ".pem", "-keystore", ks);
        }
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "trust.p12");

        String yaml = """
                listen: 127.0.0.1:0
                tls:
                  keystore: %s
                  keystore_password: %s
                  truststore: %s
                  truststore_password: %s
                  client_auth: want
                tenants:
                  - id: acme
                    cert_subjects: ['CN=acme-forwarder, O=Acme']
                  - id: globex
                    api_key_sha256: ['%s']
                kafka:
                  bootstrap_servers: %s
                  topic: tls.records
                  dead_letter_topic: tls.dead-letter
                  partitions: 1
                  replication_factor: 1
                  min_insync_replicas: 1
                syslog:
                  listeners:
                    - protocol: tcp
                      listen: 127.0.0.1:0
                      tls:
                        keystore: %s
                        keystore_password: %s
                        truststore: %s
                        truststore_password: %s
                        client_auth: need
                """.formatted(
                        dir.resolve("server.p12"),
                        PW,
                        dir.resolve("trust.p12"),
                        PW,
                        ApiKeys.sha256(GLOBEX_KEY),
                        KAFKA.bootstrapServers(),
                        dir.resolve("server.p12"),
                        PW,
                        dir.resolve("trust.p12"),
                        PW);
        collector = Collector.start(
                new CollectorConfigLoader().parse(yaml, "test"), Clock.systemUTC(), Duration.ofSeconds(60));
        withClientCert = ssl(dir.resolve("client.p12"));
        withoutClientCert = ssl(null);
    }

    @AfterAll
    static void stop() throws Exception {
        collector.close();
    }

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storepass", PW, "-storetype", "PKCS12"));
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor())
                .as("keytool %s: %s", String.join(" ", args), out)
                .isZero();
    }

    private static SSLContext ssl(Path clientKeystore) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(dir.resolve("trust.p12").toFile())) {
            trust.load(in, PW.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientKeystore != null) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (FileInputStream in = new FileInputStream(clientKeystore.toFile())) {
                ks.load(in, PW.toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, PW.toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    private static HttpResponse<String> post(SSLContext ssl, String key, String body) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(ssl).build();
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("https://127.0.0.1:" + collector.address().getPort() + "/api/v1/logs"))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theTenantIsTheOneTheClientCertificateMapsToWhateverThePayloadSays() throws Exception {
        HttpResponse<String> r = post(withClientCert, null, "{\"message\":\"mtls one\",\"tenant_id\":\"globex\"}\n");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> tenants = new ArrayList<>();
        for (String line : TopicContents.recordLines(
                TopicContents.readAll(KAFKA.bootstrapServers(), "tls.records", Duration.ofSeconds(20)))) {
            var n = JSON.readTree(line);
            if (n.get("message").asText().equals("mtls one")) {
                tenants.add(n.get("tenant_id").asText());
            }
        }
        assertThat(tenants).containsExactly("acme");
    }

    @Test
    void withoutACertificateAnApiKeyStillAuthenticatesAndWithNeitherTheAnswerIs401() throws Exception {
        assertThat(post(withoutClientCert, GLOBEX_KEY, "{\"message\":\"mtls key\"}\n")
                        .statusCode())
                .isEqualTo(200);
        HttpResponse<String> none = post(withoutClientCert, null, "{\"message\":\"mtls none\"}\n");
        assertThat(none.statusCode()).isEqualTo(401);
    }

    @Test
    void syslogOverTlsTakesTheTenantFromTheClientCertificateAndRefusesAHandshakeWithoutOne() throws Exception {
        int port = collector.syslogAddress(0).getPort();
        try (SSLSocket s = (SSLSocket) withClientCert.getSocketFactory().createSocket("127.0.0.1", port)) {
            byte[] frame =
                    "<14>1 2026-12-01T10:00:00Z web-1 api - - - syslog over tls".getBytes(StandardCharsets.UTF_8);
            s.getOutputStream().write((frame.length + " ").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().write(frame);
            s.getOutputStream().flush();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(TopicContents.recordLines(TopicContents.readAll(
                                            KAFKA.bootstrapServers(), "tls.records", Duration.ofSeconds(20)))
                                    .stream()
                                    .map(l -> {
                                        try {
                                            return JSON.readTree(l);
                                        } catch (IOException e) {
                                            throw new UncheckedIOException(e);
                                        }
                                    })
                                    .filter(n -> n.get("message").asText().equals("syslog over tls")))
                            .singleElement()
                            .satisfies(n -> {
                                assertThat(n.get("tenant_id").asText()).isEqualTo("acme");
                                assertThat(n.get("service").asText()).isEqualTo("api");
                            }));
        }
        try (SSLSocket s = (SSLSocket) withoutClientCert.getSocketFactory().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            int read;
            try {
                s.getOutputStream().write("<14>1 - h a - - - never\n".getBytes());
                s.getOutputStream().flush();
                read = s.getInputStream().read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the collector kept a connection without a client certificate open", e);
            } catch (IOException e) {
                read = -2; // the handshake was refused (certificate_required)
            }
            assertThat(read).as("refused or closed").isLessThan(0);
        }
    }
}
