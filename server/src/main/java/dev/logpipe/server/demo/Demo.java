package dev.logpipe.server.demo;

import dev.logpipe.config.ConfigException;
import dev.logpipe.forwarder.Forwarder;
import dev.logpipe.forwarder.StateException;
import dev.logpipe.forwarder.config.ConfigLoader;
import dev.logpipe.server.keys.LiveKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * {@code --demo}: {@link DemoLogs} writes growing log files and two in-process log-forwarders (the real forwarder
 * module: tail, watermarks, multiline, HTTP sink) ship them to this standalone's ingest endpoint as tenant
 * {@code default}, with a key only this process knows. Close stops the writer, then the forwarders (watermarks
 * written), before the standalone's intake stops.
 */
public final class Demo implements AutoCloseable {
    private final DemoLogs logs;
    private final Forwarder text;
    private final Forwarder json;

    private Demo(DemoLogs logs, Forwarder text, Forwarder json) {
        this.logs = logs;
        this.text = text;
        this.json = json;
    }

    public static Demo start(Path logDir, Path stateDir, String baseUrl, LiveKeys keys, Clock clock)
            throws IOException {
        String key = keys.issueInternalKey("default", "internal-demo-forwarder");
        DemoLogs logs = new DemoLogs(logDir, clock, System.nanoTime(), 2L * 1024 * 1024, Duration.ofSeconds(90))
                .start(Duration.ofMinutes(30), 15);
        Forwarder text = null;
        try {
            ConfigLoader loader = new ConfigLoader(stateDir);
            text = Forwarder.start(
                    loader.parse(textConfig(logs.textDir(), stateDir, baseUrl, key), "demo text"),
                    Forwarder.StartMode.RESET_IF_CORRUPT);
            Forwarder json = Forwarder.start(
                    loader.parse(jsonConfig(logs.jsonDir(), stateDir, baseUrl, key), "demo json"),
                    Forwarder.StartMode.RESET_IF_CORRUPT);
            return new Demo(logs, text, json);
        } catch (ConfigException e) {
            logs.close();
            if (text != null) {
                text.close();
            }
            throw new AssertionError("the demo's own forwarder config is invalid: " + e.getMessage(), e);
        } catch (StateException e) {
            logs.close();
            if (text != null) {
                text.close();
            }
            throw new IOException("demo forwarder state: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            logs.close();
            if (text != null) {
                text.close();
            }
            throw e;
        }
    }

    static String textConfig(Path dir, Path state, String baseUrl, String key) {
        StringBuilder sources = new StringBuilder();
        for (String s : DemoLogs.TEXT_SERVICES) {
            sources.append("    - path: '")
                    .append(dir)
                    .append("'\n      patterns: ['")
                    .append(s)
                    .append(".log']\n      service: ")
                    .append(s)
                    .append('\n');
        }
        return """
                watch:
                  poll: 250ms
                  state:
                    path: '%s'
                    flush_interval: 1s
                  sources:
                %sparser:
                  type: multiline
                  flush_interval: 200ms
                  multiline:
                    header_pattern: '^\\d{4}-\\d{2}-\\d{2} '
                transform:
                  extract:
                    pattern: '^(?P<ts>\\S+ \\S+) (?P<level>[A-Z]+) '
                  event_time:
                    field: ts
                    layout: log4j
                    zone: UTC
                sink:
                  type: http
                  http:
                    url: %s/api/v1/logs
                    token: '%s'
                """.formatted(state.resolve("text-watermarks.json"), sources, baseUrl, key);
    }

    static String jsonConfig(Path dir, Path state, String baseUrl, String key) {
        return """
                watch:
                  poll: 250ms
                  state:
                    path: '%s'
                    flush_interval: 1s
                  sources:
                    - path: '%s'
                      patterns: ['*.log']
                parser:
                  format: json
                  type: line
                transform:
                  event_time:
                    layout: rfc3339
                sink:
                  type: http
                  http:
                    url: %s/api/v1/logs
                    token: '%s'
                """.formatted(state.resolve("json-watermarks.json"), dir, baseUrl, key);
    }

    public long linesWritten() {
        return logs.linesWritten();
    }

    @Override
    public void close() {
        logs.close();
        text.close();
        json.close();
    }
}
