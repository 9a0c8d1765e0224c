package dev.logpipe.forwarder.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import dev.logpipe.forwarder.config.ForwarderConfig.LineFormat;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** parser.format, parser.content, parser.keys, parser.kubernetes, a source's own parser and transform.event_time. */
class FormatConfigTest {
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
    void defaultsArePlainTextWithoutEventTime() throws Exception {
        ForwarderConfig c = parse("{}");
        assertThat(c.parser().format()).isEqualTo(LineFormat.TEXT);
        assertThat(c.parser().content()).isEqualTo(LineFormat.TEXT);
        assertThat(c.parser().kubernetes().enabled()).isFalse();
        assertThat(c.transform().eventTime().field()).isNull();
        assertThat(c.transform().eventTime().layout()).isEqualTo(TimeLayout.RFC3339);
        assertThat(c.transform().eventTime().zone()).isEqualTo(ZoneId.of("UTC"));
    }

    @Test
    void containerFormatsReadTheirContentAndKubernetesNamesByDefault() throws Exception {
        ForwarderConfig c = parse("parser:\n  format: cri\n  content: json\n  keys:\n    message: [text]\n");
        assertThat(c.parser().content()).isEqualTo(LineFormat.JSON);
        assertThat(c.parser().kubernetes().enabled()).isTrue();
        assertThat(c.parser().kubernetes().service()).isEqualTo("{container}");
        assertThat(c.parser().keys().message()).containsExactly("text");
        assertThat(c.parser().keys().level()).containsExactly("level", "severity", "lvl");
        assertThat(parse("parser:\n  format: docker\n  kubernetes:\n    service: ''\n")
                        .parser()
                        .kubernetes()
                        .service())
                .isNull();
    }

    @Test
    void eventTimeWithAPatternAndAZone() throws Exception {
        ForwarderConfig c = parse("""
                transform:
                  extract:
                    pattern: '^(?P<when>\\S+ \\S+)'
                  event_time:
                    field: when
                    layout: pattern
                    pattern: 'dd.MM.yyyy HH:mm:ss'
                    zone: Europe/Berlin
                """);
        assertThat(c.transform().eventTime().layout()).isEqualTo(TimeLayout.PATTERN);
        assertThat(c.transform().eventTime().zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
    }

    @Test
    void invalidValuesNameTheirKey() {
        rejects("parser:\n  format: xml\n", "parser.format: must be one of text, json, logfmt, cri, docker");
        rejects(
                "parser:\n  format: json\n  content: json\n",
                "parser.content: is only for parser.format cri or docker");
        rejects("parser:\n  format: cri\n  content: docker\n", "parser.content: must be one of text, json, logfmt");
        rejects("parser:\n  keys:\n    message: ['']\n", "parser.keys.message[0]: must not be empty");
        rejects("parser:\n  keys:\n    msg: [a]\n", "parser.keys.msg: unknown key");
        rejects("parser:\n  format: cri\n  kubernetes:\n    service: '{deployment}'\n", "parser.kubernetes.service:");
        rejects(
                "transform:\n  event_time:\n    layout: rfc2822\n",
                "transform.event_time.layout: must be one of rfc3339");
        rejects("transform:\n  event_time:\n    zone: Mars/Olympus\n", "transform.event_time.zone: not a time zone");
        rejects("transform:\n  event_time:\n    layout: pattern\n", "transform.event_time.pattern: is required");
        rejects(
                "transform:\n  event_time:\n    layout: pattern\n    pattern: 'HH:mm'\n",
                "transform.event_time.pattern: must name a whole date and time");
        rejects(
                "transform:\n  event_time:\n    layout: pattern\n    pattern: 'yyyy-{{'\n",
                "transform.event_time.pattern: not a DateTimeFormatter pattern");
        rejects("transform:\n  event_time:\n    pattern: 'yyyy'\n", "transform.event_time.pattern: is set but");
        rejects("transform:\n  event_time:\n    field: ts\n", "transform.event_time.field: \"ts\" is neither");
        rejects(
                "transform:\n  add_fields:\n    stream: x\n",
                "transform.add_fields.stream: field \"stream\" is written");
    }

    @Test
    void aTimeFieldMayBeAKeyOfAStructuredLine() throws Exception {
        ForwarderConfig c =
                parse("parser:\n  format: logfmt\ntransform:\n  event_time:\n    field: at\n    layout: epoch_s\n");
        assertThat(c.transform().eventTime().field()).isEqualTo("at");
        assertThat(List.of(TimeLayout.values()))
                .extracting(TimeLayout::configName)
                .contains("common_log", "syslog", "log4j", "epoch_ms", "epoch_us", "epoch_ns");
    }

    @Test
    void aSourceMayNameItsOwnParserWhoseUnsetKeysTakeTheDefaultsNotTheTopLevelOnes() throws Exception {
        ForwarderConfig c = parse("""
                parser:
                  format: logfmt
                  max_record_bytes: 8KiB
                watch:
                  parse_threads: 1
                  sources:
                    - path: ./a
                    - path: ./b
                      parser:
                        format: cri
                        content: json
                        type: multiline
                        multiline:
                          header_pattern: '^\\{'
                        keys:
                          message: [text]
                """);
        ForwarderConfig.Source a = c.watch().sources().get(0);
        ForwarderConfig.Source b = c.watch().sources().get(1);
        assertThat(a.parser()).isNull();
        assertThat(a.parserOr(c.parser()).format()).isEqualTo(LineFormat.LOGFMT);
        ForwarderConfig.Parser own = b.parserOr(c.parser());
        assertThat(own.format()).isEqualTo(LineFormat.CRI);
        assertThat(own.content()).isEqualTo(LineFormat.JSON);
        assertThat(own.type()).isEqualTo(ForwarderConfig.ParserType.MULTILINE);
        assertThat(own.keys().message()).containsExactly("text");
        assertThat(own.maxRecordBytes()).isEqualTo(256 * 1024);
        assertThat(own.kubernetes().enabled()).isTrue();
        assertThat(c.watch().parseThreads()).isEqualTo(1);
    }

    @Test
    void aSourcesBadParserIsRejectedByItsKeyPath() {
        String head = "watch:\n  sources:\n    - path: ./a\n    - path: ./b\n      parser:\n";
        rejects(
                head + "        format: xml\n",
                "watch.sources[1].parser.format: must be one of text, json, logfmt, cri, docker, was \"xml\"");
        rejects(head + "        formt: json\n", "watch.sources[1].parser.formt: unknown key");
        rejects(
                head + "        format: json\n        content: json\n",
                "watch.sources[1].parser.content: is only for watch.sources[1].parser.format cri or docker");
        rejects(
                head + "        type: multiline\n",
                "watch.sources[1].parser.multiline.header_pattern: is required when watch.sources[1].parser.type is "
                        + "multiline");
        rejects(
                head + "        multiline:\n          header_pattern: '('\n        type: multiline\n",
                "watch.sources[1].parser.multiline.header_pattern:");
        rejects(
                head + "        format: cri\n        kubernetes:\n          service: '{node}'\n",
                "watch.sources[1].parser.kubernetes.service: the template may use");
        rejects(
                head + "        keys:\n          level: ['']\n",
                "watch.sources[1].parser.keys.level[0]: must not be empty");
        rejects("watch:\n  parse_threads: 17\n", "watch.parse_threads:");
    }

    @Test
    void aTimeKeyOfAStructuredLineIsAllowedWhenOnlyOneSourceReadsJson() throws Exception {
        String sources = "watch:\n  sources:\n    - path: ./a\n    - path: ./b\n      parser:\n        format: json\n";
        ForwarderConfig c = parse(sources + "transform:\n  event_time:\n    field: at\n");
        assertThat(c.transform().eventTime().field()).isEqualTo("at");
        rejects(
                "watch:\n  sources:\n    - path: ./a\ntransform:\n  event_time:\n    field: at\n",
                "transform.event_time.field: \"at\" is neither");
    }
}
