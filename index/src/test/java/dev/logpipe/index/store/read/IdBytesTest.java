package dev.logpipe.index.store.read;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.lucene.util.BytesRef;

class IdBytesTest {
    @Property(tries = 2000)
    void idsAreOrderedAsLuceneSortsTheirBytes(@ForAll String a, @ForAll String b) {
        assertThat(Integer.signum(IdBytes.of(a).compareTo(IdBytes.of(b))))
                .isEqualTo(Integer.signum(new BytesRef(a).compareTo(new BytesRef(b))));
        assertThat(IdBytes.of(a).text()).isEqualTo(new BytesRef(a).utf8ToString());
    }

    @Example
    void aCharacterPastTheBmpSortsAfterOneBelowItUnlikeStringCompareTo() {
        String astral = "\uD83D\uDE00"; // U+1F600, UTF-8 F0 9F 98 80
        String high = "\uFFFD"; // U+FFFD, UTF-8 EF BF BD
        assertThat(astral.compareTo(high)).isNegative();
        assertThat(IdBytes.of(astral).compareTo(IdBytes.of(high))).isPositive();
        assertThat(IdBytes.of("a").compareTo(IdBytes.of("ab"))).isNegative();
        assertThat(IdBytes.of("ab")).isEqualTo(IdBytes.copyOf(new byte[] {'x', 'a', 'b'}, 1, 2));
    }
}
