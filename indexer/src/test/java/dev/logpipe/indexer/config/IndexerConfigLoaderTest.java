package dev.logpipe.indexer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IndexerConfigLoaderTest {
    static final String BASE = "kafka:\n  bootstrap_servers: 127.0.0.1:9092\n";

    @Test
    void defaultsApplyAndTheExampleIsValid() throws Exception {
        IndexerConfig c = new IndexerConfigLoader().parse(BASE, "/etc/logpipe/indexer.yaml");
        assertThat(c.commit().interval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.refreshInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.refreshBehindInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(new IndexerConfigLoader()
                        .parse(BASE + "refresh:\n  interval: 2s\n", "/x.yaml")
                        .refreshBehindInterval())
                .as("never shorter than the interval")
                .isEqualTo(Duration.ofSeconds(2));
        assertThat(c.kafka().topic()).isEqualTo("logpipe.records");
        assertThat(c.dataDir()).isEqualTo(Path.of("/etc/logpipe/data"));
        assertThat(c.retention().days("anyone")).isEqualTo(30);
        Path example = Path.of("../examples/indexer.yaml");
        IndexerConfig e = new IndexerConfigLoader().load(example);
        assertThat(e.retention().days("acme")).isEqualTo(7);
        assertThat(Files.exists(example)).isTrue();
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("listen: nowhere", "listen: must be host:port"),
                Arguments.of("commit:\n  interval: -1s", "commit.interval: must be a duration"),
                Arguments.of("commit:\n  interval: 1ms", "commit.interval: must be >= 10ms"),
                Arguments.of("refresh:\n  every: 1s", "refresh.every: unknown key"),
                Arguments.of("refresh:\n  interval: 2s\n  behind_interval: 1s", "refresh.behind_interval: must be >= "),
                Arguments.of("index:\n  compression: zip", "index.compression: must be one of"),
                Arguments.of("index:\n  ram_buffer: 1MiB", "index.ram_buffer: must be between"),
                Arguments.of("retention:\n  tenants:\n    - id: \"\"", "retention.tenants[0].id: is required"),
                Arguments.of(
                        "retention:\n  tenants:\n    - id: a\n    - id: a",
                        "retention.tenants[1].id: tenant \"a\" is listed twice"),
                Arguments.of(
                        "admin:\n  api_key_sha256: [nothex]",
                        "admin.api_key_sha256[0]: must be 64 lower-case hex digits"),
                Arguments.of("index:\n  max_field_names: -1", "index.max_field_names: must be between 0 and 100000"),
                Arguments.of(
                        "index:\n  tenants:\n    - id: a\n      max_field_names: 100001",
                        "index.tenants[0].max_field_names: must be between 0 and 100000"),
                Arguments.of(
                        "index:\n  tenants:\n    - id: a\n    - id: a",
                        "index.tenants[1].id: tenant \"a\" is listed twice"),
                Arguments.of(
                        "index:\n  tenants:\n    - id: a\n      fields: 3", "index.tenants[0].fields: unknown key"),
                Arguments.of(
                        "index:\n  max_field_name_bytes_per_tenant: 2GiB",
                        "index.max_field_name_bytes_per_tenant: must be"),
                Arguments.of("kafka2: {}", "kafka2: unknown key"));
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void invalidValuesNameTheirKeyPath(String extra, String message) {
        String yaml = BASE + extra + "\n";
        assertThatThrownBy(() -> new IndexerConfigLoader().parse(yaml, "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message);
    }

    @Test
    void theCapOnFieldNamesIsAThousandUnlessSetForAllOrForATenant() throws Exception {
        assertThat(new IndexerConfigLoader()
                        .parse(BASE, "test")
                        .index()
                        .store()
                        .fieldNames()
                        .limit("acme"))
                .isEqualTo(1000);
        IndexerConfig c = new IndexerConfigLoader()
                .parse(
                        BASE
                                + "index:\n  max_field_names: 200\n  tenants:\n    - id: big\n      max_field_names: 5000\n",
                        "test");
        assertThat(c.index().store().fieldNames().limit("acme")).isEqualTo(200);
        assertThat(c.index().store().fieldNames().limit("big")).isEqualTo(5000);
        assertThat(c.index().store().fieldNames().bytesPerTenant()).isEqualTo(8L << 20);
        assertThat(new IndexerConfigLoader()
                        .parse(BASE + "index:\n  max_field_name_bytes_per_tenant: 64KiB\n", "test")
                        .index()
                        .store()
                        .fieldNames()
                        .bytesPerTenant())
                .isEqualTo(64L << 10);
    }

    @Test
    void daysMoveToALocalArchiveAfterSevenDaysUnlessATenantOrTheDefaultSaysOtherwise() throws Exception {
        IndexerConfig c = new IndexerConfigLoader().parse(BASE, "/etc/logpipe/indexer.yaml");
        assertThat(c.retention().defaultArchiveAfter()).isEqualTo(7);
        assertThat(c.archive()).isPresent();
        assertThat(c.archive().get().directory()).isEqualTo(Path.of("/etc/logpipe/data/archive"));

        IndexerConfig set = new IndexerConfigLoader()
                .parse(
                        BASE + "retention:\n  archive_after: 3\n  tenants:\n    - id: audit\n      archive_after: 0\n"
                                + "    - id: web\n      retention_days: 90\n",
                        "/x.yaml");
        assertThat(set.retention().defaultArchiveAfter()).isEqualTo(3);
        assertThat(set.retention().tenantArchiveAfter()).isEqualTo(Map.of("audit", 0));
        assertThatThrownBy(() -> new IndexerConfigLoader().parse(BASE + "retention:\n  archive_after: -1\n", "t"))
                .hasMessageContaining("retention.archive_after:");
        assertThatThrownBy(() -> new IndexerConfigLoader()
                        .parse(
                                BASE + "store: opensearch\nopensearch:\n  hosts: [http://127.0.0.1:9200]\n"
                                        + "archive:\n  grace: 1h\n",
                                "t"))
                .hasMessageStartingWith("archive: the archive tier moves days out of the Lucene store");
    }

    @Test
    void bulksInFlightToOpenSearchAreOneUnlessSetBetweenOneAndSixteen() throws Exception {
        String os = BASE + "store: opensearch\nopensearch:\n  hosts: [http://127.0.0.1:9200]\n";
        assertThat(new IndexerConfigLoader()
                        .parse(os, "t")
                        .opensearch()
                        .orElseThrow()
                        .bulkConcurrency())
                .isEqualTo(1);
        assertThat(new IndexerConfigLoader()
                        .parse(os + "  bulk_concurrency: 4\n", "t")
                        .opensearch()
                        .orElseThrow()
                        .bulkConcurrency())
                .isEqualTo(4);
        assertThatThrownBy(() -> new IndexerConfigLoader().parse(os + "  bulk_concurrency: 0\n", "t"))
                .hasMessageContaining("opensearch.bulk_concurrency");
    }

    @Test
    void kafkaSettingsTheIndexerOwnsCannotBeOverridden() {
        assertThatThrownBy(() -> new IndexerConfigLoader()
                        .parse(BASE + "  properties:\n    enable.auto.commit: " + "\"true\"\n", "test"))
                .hasMessageContaining("kafka.properties.enable.auto.commit: is fixed");
        assertThatThrownBy(() -> new IndexerConfigLoader().parse("kafka:\n  topic: x\n", "test"))
                .hasMessageContaining("kafka.bootstrap_servers: is required");
        assertThatThrownBy(() -> new IndexerConfigLoader().parse(BASE + "  topic: a\n  dead_letter_topic: a\n", "test"))
                .hasMessageContaining("kafka.dead_letter_topic: must differ");
    }

    @Test
    void theDefaultTenantIsOffUnlessSetAndMustBeAStorableTenant() throws Exception {
        assertThat(new IndexerConfigLoader().parse(BASE, "test").kafka().defaultTenant())
                .isNull();
        assertThat(new IndexerConfigLoader()
                        .parse(BASE + "  default_tenant: web-team\n", "test")
                        .kafka()
                        .defaultTenant())
                .isEqualTo("web-team");
        assertThatThrownBy(() -> new IndexerConfigLoader().parse(BASE + "  default_tenant: \"bad\\u0001\"\n", "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka.default_tenant: tenant_id");
    }
}
