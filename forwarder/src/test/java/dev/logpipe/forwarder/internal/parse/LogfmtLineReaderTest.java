package dev.logpipe.forwarder.internal.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import dev.logpipe.record.JsonBuffer;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * One reader for a whole file: what it remembers between lines (resolved keys, the keys of the line before) must
 * never change what a line reads as.
 */
class LogfmtLineReaderTest {
    private static final TimeParser RFC3339 =
            TimeParsers.of(TimeLayout.RFC3339, ZoneOffset.UTC, null, InstantSource.system());

    /** Keys that are prefixes of each other, schema keys, and keys around the 16 bytes compared as two words. */
    private static final List<String> KEYS = List.of(
            "l",
            "lev",
            "level",
            "levels",
            "msg",
            "msgx",
            "time",
            "trace_id",
            "span_id",
            "service",
            "k123456",
            "k1234567",
            "k12345678",
            "key_of_fifteen_",
            "key_of_sixteen__",
            "key_of_seventeen_",
            "a_key_that_is_much_longer_than_two_words");

    private static LogfmtLineReader reader() {
        return new LogfmtLineReader(KeyMapping.DEFAULT, null, RFC3339);
    }

    /** Everything a read gives, as one text. */
    private static String read(LogfmtLineReader reader, String line) {
        StructuredLine out = new StructuredLine();
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        boolean ok = reader.read(b, 0, b.length, Map.of(), out);
        return ok + " error=" + out.error() + " message=" + text(out.messageJson()) + " level=" + out.level()
                + " service=" + out.service() + " trace=" + out.traceId() + " span=" + out.spanId() + " time="
                + out.time() + " badTime=" + out.badTime() + " fields=" + text(out.fieldsJson());
    }

    private static String text(JsonBuffer b) {
        return new String(b.array(), 0, b.size(), StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<String>> files() {
        Arbitrary<String> value = Arbitraries.oneOf(
                Arbitraries.strings().withChars("abz09-:.").ofMinLength(0).ofMaxLength(20),
                Arbitraries.of("2026-12-01T08:00:00.5Z", "INFO", "warn", "x=y", "a\"b"),
                Arbitraries.strings()
                        .withChars("ab =\\\"\tn\u00e9")
                        .ofMaxLength(12)
                        .map(s -> "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""));
        Arbitrary<String> pair = Combinators.combine(
                        Arbitraries.of(KEYS), value, Arbitraries.integers().between(0, 9))
                .as((k, v, form) -> form == 0 ? k : form == 1 ? k + "=\"unterminated" : k + "=" + v);
        Arbitrary<String> line = pair.list().ofMinSize(0).ofMaxSize(8).map(p -> String.join(" ", p));
        // Runs of one line repeated, as files repeat their keys, and lines of other keys between them.
        return Combinators.combine(line, Arbitraries.integers().between(1, 3))
                .as((l, times) -> {
                    List<String> run = new ArrayList<>();
                    for (int k = 0; k < times; k++) {
                        run.add(l);
                    }
                    return run;
                })
                .list()
                .ofMaxSize(10)
                .map(runs -> runs.stream().flatMap(List::stream).toList());
    }

    @Property(tries = 400)
    void aFileReadByOneReaderReadsAsEachLineReadAlone(@ForAll("files") List<String> lines) {
        LogfmtLineReader shared = reader();
        for (String line : lines) {
            assertThat(read(shared, line)).as(line).isEqualTo(read(reader(), line));
        }
    }

    @Provide
    Arbitrary<List<List<String[]>>> plainKeyFiles() {
        Arbitrary<String> key = Arbitraries.of("a", "ab", "abc", "k1234567", "k12345678", "key_of_sixteen__", "x.y");
        // Values in every shape the fast paths see: plain, with control characters, quotes, backslashes, non-ASCII.
        Arbitrary<String> value = Arbitraries.strings()
                .withChars("ab09 -:\"\\\t\u0001\u00e9\u20ac")
                .ofMaxLength(20);
        Arbitrary<String[]> pair = Combinators.combine(
                        key, value, Arbitraries.integers().between(0, 4))
                .as((k, v, form) -> new String[] {k, v, form == 0 ? "bare" : "value"});
        return pair.list().ofMinSize(1).ofMaxSize(6).list().ofMaxSize(6);
    }

    @Property(tries = 500)
    void fieldsHoldEachKeysFirstValueEscapedAsJson(@ForAll("plainKeyFiles") List<List<String[]>> file)
            throws Exception {
        ObjectMapper json = new ObjectMapper();
        LogfmtLineReader shared = reader();
        for (List<String[]> pairs : file) {
            StringBuilder line = new StringBuilder();
            Map<String, Object> expected = new LinkedHashMap<>();
            for (String[] p : pairs) {
                line.append(line.isEmpty() ? "" : " ").append(p[0]);
                if (p[2].equals("bare")) {
                    expected.putIfAbsent(p[0], true);
                    continue;
                }
                boolean quote = p[1].isEmpty() || p[1].matches(".*[ \t\"\\\\=].*");
                line.append('=')
                        .append(quote ? "\"" + p[1].replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : p[1]);
                expected.putIfAbsent(p[0], p[1]);
            }
            StructuredLine out = new StructuredLine();
            byte[] b = line.toString().getBytes(StandardCharsets.UTF_8);
            boolean ok = shared.read(b, 0, b.length, Map.of(), out);
            if (expected.isEmpty() || expected.values().stream().allMatch(v -> v.equals(true))) {
                continue; // no key=value pair: an error, covered elsewhere
            }
            assertThat(ok).as(line.toString()).isTrue();
            Map<String, Object> fields =
                    json.readValue("{" + text(out.fieldsJson()).substring(1) + "}", new TypeReference<>() {});
            assertThat(fields).as(line.toString()).containsExactlyEntriesOf(expected);
        }
    }

    @Test
    void aKeyThatStartsWithTheKeyAtItsPlaceInTheLineBeforeIsReadAsItself() {
        LogfmtLineReader r = reader();
        read(r, "lev=1 msg=hello");
        assertThat(read(r, "level=WARN msg=hello")).contains("level=WARN").endsWith("fields=");
        assertThat(read(r, "lev=2 msg=hello")).contains("level=null").endsWith("fields=,\"lev\":\"2\"");
        assertThat(read(r, "le=3 msg=hello")).endsWith("fields=,\"le\":\"3\"");
        assertThat(read(r, "lev msg=hello")).endsWith("fields=,\"lev\":true");
    }

    @Test
    void idsInIllFormedUtf8AreWrittenAsTheirStringIs() {
        // "a", an incomplete three-byte sequence, "b"; and an encoded surrogate: one U+FFFD per ill-formed run.
        byte[] line = {
            't',
            'r',
            'a',
            'c',
            'e',
            '_',
            'i',
            'd',
            '=',
            'a',
            (byte) 0xE2,
            (byte) 0x82,
            'b',
            ' ',
            's',
            'p',
            'a',
            'n',
            '_',
            'i',
            'd',
            '=',
            (byte) 0xED,
            (byte) 0xA0,
            (byte) 0x80,
            ' ',
            'm',
            's',
            'g',
            '=',
            'm'
        };
        StructuredLine out = new StructuredLine();
        assertThat(reader().read(line, 0, line.length, Map.of(), out)).isTrue();
        String trace = new String(new byte[] {'a', (byte) 0xE2, (byte) 0x82, 'b'}, StandardCharsets.UTF_8);
        String span = new String(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, StandardCharsets.UTF_8);
        JsonBuffer traceJson = new JsonBuffer(64); // written first: asking for the String keeps it
        out.writeTraceId(traceJson);
        JsonBuffer spanJson = new JsonBuffer(64);
        out.writeSpanId(spanJson);
        assertThat(out.traceId()).isEqualTo(trace);
        assertThat(out.spanId()).isEqualTo(span);
        assertThat(text(traceJson))
                .isEqualTo(text(new JsonBuffer(64).string(trace)))
                .isEqualTo("\"a\uFFFDb\"");
        assertThat(text(spanJson)).isEqualTo(text(new JsonBuffer(64).string(span)));
    }

    @Test
    void aRepeatedKeyKeepsItsFirstValueHoweverManyKeysTheLineHas() {
        StringBuilder line = new StringBuilder("msg=m");
        StringBuilder fields = new StringBuilder();
        for (int k = 0; k < 40; k++) {
            line.append(" k").append(k).append("=first");
            fields.append(",\"k").append(k).append("\":\"first\"");
        }
        line.append(" k1=again k35=again k39=again");
        LogfmtLineReader r = reader();
        for (int times = 0; times < 3; times++) { // the first line, then lines whose keys are predicted
            assertThat(read(r, line.toString())).endsWith("fields=" + fields);
        }
    }

    @Test
    void aFileWhoseKeysNeverRepeatIsReadRightPastTheKeyCachesSize() {
        LogfmtLineReader r = reader();
        for (int line = 0; line < 40; line++) {
            StringBuilder text = new StringBuilder("msg=m");
            StringBuilder fields = new StringBuilder();
            for (int k = 0; k < 20; k++) {
                String key = "k" + line + "_" + k;
                text.append(' ').append(key).append('=').append(k);
                fields.append(",\"").append(key).append("\":\"").append(k).append('"');
            }
            assertThat(read(r, text.toString())).endsWith("fields=" + fields);
        }
    }
}
