package dev.logpipe.collector.internal.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PacedInputStreamTest {
    private final AtomicLong now = new AtomicLong();

    /** A body that advances the fake clock by {@code nanosPerByte} for every byte it hands out, one at a time. */
    private InputStream trickle(int size, long nanosPerByte) {
        return new ByteArrayInputStream(new byte[size]) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                now.addAndGet(nanosPerByte);
                return super.read(b, off, Math.min(len, 1));
            }
        };
    }

    @Test
    void aBodyBelowTheMinimumRateIsCutWith408AfterTheGracePeriod() {
        InputStream in = new PacedInputStream(
                trickle(100, 1_000_000_000L), now::get, 1024, Duration.ofSeconds(1), Duration.ofSeconds(60));
        assertThatThrownBy(in::readAllBytes).isInstanceOfSatisfying(BodyException.class, e -> {
            assertThat(e.status()).isEqualTo(408);
            assertThat(e.getMessage()).contains("limits.min_body_rate");
        });
        assertThat(now.get()).as("cut within a few seconds, not after 100").isLessThan(5_000_000_000L);
    }

    @Test
    void aFastEnoughBodyIsReadWhole() throws IOException {
        InputStream in = new PacedInputStream(
                trickle(10_000, 10_000), now::get, 1024, Duration.ofSeconds(1), Duration.ofSeconds(60));
        assertThat(in.readAllBytes()).hasSize(10_000);
    }

    @Test
    void aBodyPastTheDeadlineIsCutEvenAtAGoodRate() {
        // 2 KiB/s is above the minimum, but 100 KiB take 50 s: more than the 10 s deadline.
        InputStream in = new PacedInputStream(
                trickle(100 * 1024, 500_000_000L / 1024),
                now::get,
                1024,
                Duration.ofSeconds(1),
                Duration.ofSeconds(10));
        assertThatThrownBy(in::readAllBytes).isInstanceOfSatisfying(BodyException.class, e -> {
            assertThat(e.status()).isEqualTo(408);
            assertThat(e.getMessage()).contains("limits.body_timeout");
        });
    }
}
