package dev.logpipe.record;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class JsonBufferTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Property(tries = 1000)
    void anyStringRoundTripsThroughJson(@ForAll String s) throws Exception {
        // Lone surrogates cannot be encoded in UTF-8; Java replaces them with '?', so compare against that.
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        JsonBuffer b = new JsonBuffer(16);
        b.string(utf8, 0, utf8.length);
        String decoded = JSON.readValue(b.toByteArray(), String.class);
        assertThat(decoded).isEqualTo(new String(utf8, StandardCharsets.UTF_8));
    }

    @Property(tries = 1000)
    void arbitraryBytesAlwaysGiveValidJson(@ForAll byte[] bytes) throws Exception {
        JsonBuffer b = new JsonBuffer(16);
        b.string(bytes, 0, bytes.length);
        String decoded = JSON.readValue(b.toByteArray(), String.class);
        // Java's decoder also replaces each malformed sequence with U+FFFD; well-formed parts survive.
        assertThat(decoded.replace("\uFFFD", ""))
                .isEqualTo(new String(bytes, StandardCharsets.UTF_8).replace("\uFFFD", ""));
    }

    @Test
    void longStringsUseTheirExactEscapedLength() throws Exception {
        String s = "\"\\\n".repeat(10_000) + "é" + "\u0001".repeat(5000);
        JsonBuffer b = new JsonBuffer(16);
        b.string(s);
        assertThat(JSON.readValue(b.toByteArray(), String.class)).isEqualTo(s);
    }

    @Property
    void numbersAreWrittenAsJsonIntegers(@ForAll long v) throws Exception {
        JsonBuffer b = new JsonBuffer(16);
        b.number(v);
        assertThat(JSON.readValue(b.toByteArray(), Long.class)).isEqualTo(v);
    }
}
