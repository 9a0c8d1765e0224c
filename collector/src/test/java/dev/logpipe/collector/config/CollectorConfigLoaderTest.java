package dev.logpipe.collector.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

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
}
