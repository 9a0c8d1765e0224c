package dev.logpipe.query.internal.tail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.store.read.IdBytes;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.apache.lucene.util.StringHelper;

class Murmur3Test {
    @Property(tries = 2000)
    void hashesEveryByteStringAsLucenesStringHelperDoes(
            @ForAll @Size(max = 64) byte[] bytes, @ForAll int seed, @ForAll @Size(max = 7) byte[] before) {
        byte[] padded = new byte[before.length + bytes.length];
        System.arraycopy(before, 0, padded, 0, before.length);
        System.arraycopy(bytes, 0, padded, before.length, bytes.length);
        assertThat(Murmur3.x86_32(IdBytes.copyOf(padded, before.length, bytes.length), seed))
                .isEqualTo(StringHelper.murmurhash3_x86_32(padded, before.length, bytes.length, seed));
    }

    @Example
    void aRecordIdHashesToTheValueTheTailWindowAlwaysKept() {
        byte[] id = "r-2gk3-17".getBytes(StandardCharsets.UTF_8);
        for (int seed : new int[] {0x5bd1e995, 0x1b873593}) {
            for (int length = 0; length <= id.length; length++) {
                assertThat(Murmur3.x86_32(IdBytes.copyOf(id, 0, length), seed))
                        .isEqualTo(StringHelper.murmurhash3_x86_32(id, 0, length, seed));
            }
        }
    }
}
