package dev.logpipe.collector.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectorConfigLoaderTest {
    private static final String TENANT = """
            tenants:
              - id: acme
                api_key_sha256: ['%s']
            """.formatted("0".repeat(64));
    private static final String KAFKA = """
            kafka:
              bootstrap_servers: 127.0.0.1:9092
              replication_factor: 1
              min_insync_replicas: 1
            """;

    private static CollectorConfig parse(String yaml) throws ConfigException {
        return new CollectorConfigLoader().parse(yaml, "test");
    }

    @Test
    void aRateTheBucketCannotHoldIsRefusedWithItsKeyNotAStackTraceAtStartup() {
        assertThatThrownBy(() ->
                        parse(TENANT.replace("api_key_sha256", "bytes_per_second: 4GiB\n    api_key_sha256") + KAFKA))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tenants[0].bytes_per_second")
                .hasMessageContaining("1000000000");
        assertThatThrownBy(() -> parse(
                        TENANT.replace("api_key_sha256", "records_per_second: 2000000000\n    " + "api_key_sha256")
                                + KAFKA))
                .hasMessageContaining("tenants[0].records_per_second");
        assertThatThrownBy(() -> parse(TENANT.replace("api_key_sha256", "burst: 2h\n    api_key_sha256") + KAFKA))
                .hasMessageContaining("tenants[0].burst");
    }

    @Test
    void anInFlightBoundThatCannotHoldOneRequestIsRefused() {
        assertThatThrownBy(() -> parse("limits:\n  in_flight_bytes: 16MiB\n" + TENANT + KAFKA))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("limits.in_flight_bytes")
                .hasMessageContaining("must be at least");
    }

    @Test
    void theDefaultsHoldTogetherAndTheShippedExampleLoads() throws Exception {
        CollectorConfig c = parse(TENANT + KAFKA);
        assertThat(c.limits().maxConcurrentRequests()).isEqualTo(128);
        assertThat(c.limits().maxRequestsPerTenant()).isEqualTo(32);
        assertThat(c.limits().minBodyRate()).isEqualTo(16 * 1024);
        assertThat(new CollectorConfigLoader()
                        .load(Path.of("../examples/collector.yaml"))
                        .tenants())
                .isNotEmpty();
        assertThatThrownBy(() -> parse("limits:\n  max_retry_after: 2h\n" + TENANT + KAFKA))
                .hasMessageContaining("limits.max_retry_after");
    }

    @Test
    void theHttpAndSyslogTlsNodesAreReadAlikeAndTheirErrorsNameTheirOwnKeys(@TempDir Path dir) throws Exception {
        Path keystore = Files.writeString(dir.resolve("server.p12"), "not checked here");
        String yaml = """
                tls:
                  keystore: %1$s
                  keystore_password: secret
                syslog:
                  listeners:
                    - protocol: tcp
                      listen: 127.0.0.1:0
                      tenant: acme
                      tls:
                        keystore: %1$s
                        keystore_password_env: NO_SUCH_VARIABLE_FOR_LOGPIPE_TEST
                """.formatted(keystore);
        assertThatThrownBy(() -> parse(yaml + TENANT + KAFKA))
                .hasMessage("syslog.listeners[0].tls.keystore_password_env: environment variable "
                        + "NO_SUCH_VARIABLE_FOR_LOGPIPE_TEST is not set");

        String good = yaml.replace("keystore_password_env: NO_SUCH_VARIABLE_FOR_LOGPIPE_TEST", "keystore_password: s2");
        CollectorConfig c = parse(good + TENANT + KAFKA);
        assertThat(c.tls().keystore()).isEqualTo(keystore);
        assertThat(c.tls().clientAuth()).isEqualTo(CollectorConfig.ClientAuth.NONE);
        assertThat(c.syslog().listeners().get(0).tls().keystorePassword()).isEqualTo("s2");

        assertThatThrownBy(() -> parse(good.replaceFirst(
                                "keystore_password: secret", "keystore_password: secret\n  " + "client_auth: need")
                        + TENANT
                        + KAFKA))
                .hasMessage("tls.client_auth: need needs tls.truststore");
        assertThatThrownBy(() -> parse(
                        good.replace("keystore_password: s2", "keystore_password: s2\n" + "        client_auth: want")
                                + TENANT
                                + KAFKA))
                .hasMessage("syslog.listeners[0].tls.client_auth: want needs syslog.listeners[0].tls.truststore");
        assertThatThrownBy(
                        () -> parse(good.replaceFirst("keystore: " + keystore, "keystore: " + dir.resolve("gone.p12"))
                                + TENANT
                                + KAFKA))
                .hasMessage("tls.keystore: " + dir.resolve("gone.p12") + " is not a readable file");
    }
}
