package dev.logpipe.forwarder.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private ForwarderConfig parse(String yaml) throws ConfigException {
        return new ConfigLoader(dir).parse(yaml, "test");
    }

    private void rejects(String yaml, String message) {
        assertThatThrownBy(() -> parse(yaml))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void theDocumentedExampleParsesWithItsKeysAndDefaults() throws Exception {
        ForwarderConfig c = parse("""
                watch:
                  poll: 1s
                  state:
                    path: /var/lib/log-forwarder/watermarks.json
                    flush_interval: 1s
                    flush_every: 0
                  sources:
                    - path: ./logs/app
                      patterns:
                        - "*.log"
                """);
        assertThat(c.watch().poll()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.watch().state().path()).isEqualTo(Path.of("/var/lib/log-forwarder/watermarks.json"));
        assertThat(c.watch().state().flushEvery()).isZero();
        assertThat(c.watch().sources()).singleElement().satisfies(s -> {
            assertThat(s.directory()).isEqualTo(dir.resolve("logs/app"));
            assertThat(s.patterns()).containsExactly("*.log");
        });
        assertThat(c.parser().type()).isEqualTo(ForwarderConfig.ParserType.LINE);
        assertThat(c.parser().flushInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.sink().type()).isEqualTo(ForwarderConfig.SinkType.STDOUT);
        assertThat(c.metrics().listen()).isNull();
    }

    @Test
    void defaultsPutTheStateInTheWorkingDirectory() throws Exception {
        assertThat(new ConfigLoader(dir).defaults().watch().state().path())
                .isEqualTo(dir.resolve(".log-forwarder/watermarks.json"));
    }

    @Test
    void pathsShorthandSplitsGlobsIntoDirectoryAndPattern() throws Exception {
        Files.createDirectories(dir.resolve("d"));
        ForwarderConfig c = parse("watch:\n  paths: [\"./logs/*.log\", \"./d\", \"./one/file.txt\"]\n");
        assertThat(c.watch().sources())
                .extracting(ForwarderConfig.Source::directory, ForwarderConfig.Source::patterns)
                .containsExactly(
                        Tuple.tuple(dir.resolve("logs"), List.of("*.log")),
                        Tuple.tuple(dir.resolve("d"), List.of("*")),
                        Tuple.tuple(dir.resolve("one"), List.of("file.txt")));
    }

    @Test
    void invalidValuesFailNamingTheKeyPath() {
        rejects("watch:\n  state:\n    flush_interval: -1s\n", "watch.state.flush_interval: must be a duration");
        rejects("watch:\n  state:\n    flush_every: -3\n", "watch.state.flush_every: must be between 0");
        rejects("watch:\n  poll: fast\n", "watch.poll: must be a duration");
        rejects(
                "watch:\n  state:\n    reset_on_corrupt: maybe\n",
                "watch.state.reset_on_corrupt: must be true or false");
        rejects("parser:\n  type: xml\n", "parser.type: must be one of line, multiline");
        rejects("parser:\n  type: multiline\n", "parser.multiline.header_pattern: is required");
        rejects(
                "parser:\n  type: multiline\n  multiline:\n    header_pattern: '(unclosed'\n",
                "parser.multiline.header_pattern: invalid regular expression");
        rejects("sink:\n  type: file\n", "sink.file.path: is required");
        rejects("sink:\n  type: carrier-pigeon\n", "sink.type: must be one of file, stdout, http, kafka");
        rejects("sink:\n  type: kafka\n", "sink.kafka.bootstrap_servers: is required");
        rejects(
                "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: h:9092\n    acks: 1\n",
                "sink.kafka.acks: must be all");
        rejects(
                "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: h:9092\n    enable_idempotence: false\n",
                "sink.kafka.enable_idempotence: must be true");
        rejects(
                "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: h:9092\n    properties:\n      acks: '0'\n",
                "sink.kafka.properties.acks: is set by the forwarder");
        rejects(
                "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: h:9092\n    properties:\n      linger.ms: 100\n",
                "sink.kafka.properties.linger.ms: is set by the forwarder");
        rejects(
                "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: h:9092\n    topic: ..\n",
                "sink.kafka.topic: must be");
        rejects(
                "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: h:9092\n    compression: brotli\n",
                "sink.kafka.compression: must be one of");
        rejects(
                "sink:\n  type: kafka\n  kafka:\n    bootstrap_servers: h:9092\n    topic: 'bad topic'\n",
                "sink.kafka.topic: must be a Kafka topic name");
        rejects("sink:\n  type: http\n", "sink.http.url: is required");
        rejects(
                "sink:\n  spool:\n    enabled: true\n    max_bytes: 100MiB\n    segment_bytes: 64MiB\n",
                "sink.spool.segment_bytes: must be at most a quarter of sink.spool.max_bytes");
        rejects(
                "sink:\n  spool:\n    when_full: drop_newest\n",
                "sink.spool.when_full: must be one of block, drop_oldest");
        rejects("sink:\n  spool:\n    max_bytes: 1KiB\n", "sink.spool.max_bytes: must be between");
        rejects(
                "sink:\n  type: http\n  http:\n    url: http://h/x\n    compression: brotli\n",
                "sink.http.compression: must be one of gzip, zstd, none");
        rejects(
                "sink:\n  type: http\n  http:\n    url: ftp://x/y\n",
                "sink.http.url: must be an http:// or https:// URL");
        rejects(
                "sink:\n  type: http\n  http:\n    url: http://h/x\n    token_env: LOGPIPE_SURELY_UNSET_VAR\n",
                "sink.http.token_env: environment variable LOGPIPE_SURELY_UNSET_VAR is not set");
        rejects(
                "sink:\n  type: http\n  http:\n    url: http://h/x\n    token: a\n    token_env: B\n",
                "sink.http.token_env: set either");
        rejects(
                "sink:\n  type: http\n  http:\n    url: http://h/x\n    token: 'two words'\n",
                "sink.http.token: the token must be non-empty printable ASCII");
        rejects(
                "sink:\n  type: http\n  http:\n    url: http://h/x\n    max_records: 0\n",
                "sink.http.max_records: must be between 1");
        rejects("metrics:\n  listen: nowhere\n", "metrics.listen: must be host:port");
        rejects("logging:\n  level: loud\n", "logging.level: must be one of");
        rejects("filter:\n  include: ['a(']\n", "filter.include[0]: invalid regular expression");
        rejects(
                "transform:\n  extract:\n    pattern: '\\w+'\n",
                "transform.extract.pattern: must have at least one named group");
        rejects("watch:\n  poll: 99999999999999999999s\n", "watch.poll: must be a duration");
        rejects("watch:\n  poll: 9999999999999999h\n", "watch.poll: must be a duration");
        rejects("watch:\n  rotate_wait: 3000000h\n", "watch.rotate_wait: must be <= 24h");
        rejects("parser:\n  max_record_bytes: 99999999999GiB\n", "parser.max_record_bytes: must be between");
        rejects("transform:\n  add_fields:\n    log.offset: x\n", "transform.add_fields.log.offset: field");
    }

    @Test
    void httpSinkDefaultsAndTokenNeverShowInToString() throws Exception {
        ForwarderConfig c = parse(
                "sink:\n  type: http\n  http:\n    url: http://127.0.0.1:8080/api/v1/logs\n" + "    token: s3cr3t\n");
        ForwarderConfig.HttpSink h = c.sink().http();
        assertThat(h.compression()).isEqualTo(dev.logpipe.forwarder.config.ForwarderConfig.HttpCompression.GZIP);
        assertThat(h.maxRecords()).isEqualTo(5000);
        assertThat(h.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(h.token()).isEqualTo("s3cr3t");
        assertThat(h.toString()).doesNotContain("s3cr3t");
    }

    @Test
    void unknownKeysFailNamingTheirPath() {
        rejects("watch:\n  pol: 1s\n", "watch.pol: unknown key");
        rejects("watch:\n  state:\n    flush: 1s\n", "watch.state.flush: unknown key");
        rejects("sinks:\n  type: file\n", "sinks: unknown key");
        rejects("watch:\n  sources:\n    - path: ./x\n      pattern: ['*']\n", "watch.sources[0].pattern: unknown key");
    }

    @Test
    void stateOrLogOrOutputInsideAWatchedSourceIsRejected() {
        rejects(
                "watch:\n  state:\n    path: ./logs/watermarks.json\n  sources:\n    - path: ./logs\n      patterns: ['*']\n",
                "watch.state.path: ");
        rejects(
                "watch:\n  sources:\n    - path: ./logs\n      patterns: ['*.log']\nlogging:\n  file: ./logs/forwarder.log\n",
                "logging.file: ");
        rejects(
                "watch:\n  sources:\n    - path: ./logs\n      patterns: ['*.ndjson']\nsink:\n  type: file\n  file:\n"
                        + "    path: ./logs/out.ndjson\n",
                "sink.file.path: ");
    }

    @Test
    void brokenYamlIsReportedWithItsLine() {
        assertThatThrownBy(() -> parse("watch:\n  poll: 1s\n bad: [\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("is not valid YAML");
        rejects("watch:\n  poll: 1s\n  poll: 2s\n", "config test is not valid YAML");
    }
}
