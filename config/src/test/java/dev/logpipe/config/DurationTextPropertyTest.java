package dev.logpipe.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/** Durations written by {@link ConfigNode#format} read back as the same duration; arbitrary text never throws. */
class DurationTextPropertyTest {
    @Property
    void aFormattedDurationParsesBackToItself(@ForAll @LongRange(min = 0, max = 86_400_000) long millis) {
        Duration d = Duration.ofMillis(millis);
        assertThat(ConfigNode.parseDuration(ConfigNode.format(d))).isEqualTo(d);
    }

    @Property
    void anyTextEitherParsesOrIsNull(@ForAll("durationLike") String text) {
        Duration d = ConfigNode.parseDuration(text);
        if (d != null) {
            assertThat(d.isNegative()).isFalse();
        }
    }

    @Provide
    Arbitrary<String> durationLike() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.strings().withChars("0123456789mhs ").ofMaxLength(25));
    }
}
