package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An invalid configuration fails startup with exit code 2 and a message that starts with the key path
 * (docs/configuration.md) before anything is opened: no watermark directory, no sink file.
 */
class ConfigValidationTest extends WorkspaceTest {
    @Override
    protected boolean metrics() {
        return false;
    }

    private static final int EXIT_CONFIG = 2;

    static Stream<Arguments> invalidConfigurations() {
        return Stream.of(
                invalid("unknown key", c -> c.set("watch.pol", "1s"), "watch.pol: unknown key"),
                invalid(
                        "unknown nested key",
                        c -> c.set("watch.state.flush_intervall", "1s"),
                        "watch.state.flush_intervall: unknown key"),
                invalid(
                        "bad duration",
                        c -> c.set("watch.poll", "fast"),
                        "watch.poll: must be a duration like 250ms, 1s, 5m or 0, was \"fast\""),
                invalid(
                        "negative duration",
                        c -> c.set("watch.state.flush_interval", "-1s"),
                        "watch.state.flush_interval: must be a duration"),
                invalid(
                        "watermark file inside a watched source",
                        c -> c.source(Path.of("logs"), "*").set("watch.state.path", "logs/watermarks.json"),
                        "watch.state.path: " + "%ROOT%/logs/watermarks.json is inside watched source"),
                invalid(
                        "watermark lock file inside a watched source",
                        c -> c.source(Path.of("logs"), "*.lock").set("watch.state.path", "logs/wm.json"),
                        "watch.state.path: %ROOT%/logs/wm.json.lock is inside watched source"),
                invalid(
                        "logging.file inside a watched source",
                        c -> c.set("logging.file", "logs/forwarder.log"),
                        "logging.file: %ROOT%/logs/forwarder.log is inside watched source"),
                invalid(
                        "sink file inside a watched source",
                        c -> c.set("sink.file.path", "logs/out.log"),
                        "sink.file.path: %ROOT%/logs/out.log is inside watched source"),
                invalid(
                        "multiline without header pattern",
                        c -> c.set("parser.type", "multiline"),
                        "parser.multiline.header_pattern: is required when parser.type is multiline"),
                invalid(
                        "a source's own parser with an unknown format",
                        c -> c.set(
                                "watch.sources",
                                List.of(
                                        Map.of("path", "logs"),
                                        Map.of("path", "other", "parser", Map.of("format", "xml")))),
                        "watch.sources[1].parser.format: must be one of text, json, logfmt, cri, docker, was \"xml\""));
    }

    private static Arguments invalid(String name, Consumer<ForwarderConfigYaml> change, String message) {
        return Arguments.of(name, change, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidConfigurations")
    void invalidConfigurationExitsWithCode2AndTheKeyPathBeforeOpeningAnything(
            String name, Consumer<ForwarderConfigYaml> change, String message) {
        change.accept(ws.config());
        ForwarderProcess p = ws.start();
        assertThat(p.awaitExit()).as("exit code; log:\n%s", p.log()).isEqualTo(EXIT_CONFIG);

        List<String> lines = p.log().lines().toList();
        assertThat(lines).as("stderr").hasSize(1);
        assertThat(lines.get(0))
                .startsWith("log-forwarder: configuration error: "
                        + message.replace("%ROOT%", ws.root().toString()));
        assertThat(ws.watermarks().getParent()).doesNotExist();
        assertThat(ws.sinkFile().getParent()).doesNotExist();
    }
}
