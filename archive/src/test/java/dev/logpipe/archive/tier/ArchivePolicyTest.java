package dev.logpipe.archive.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArchivePolicyTest {
    private static final LocalDate D = LocalDate.parse("2026-11-20");

    @Test
    void aDayIsDueOnceItIsMoreThanArchiveAfterDaysOld() {
        ArchivePolicy p = new ArchivePolicy(7, Map.of(), Duration.ofHours(1));

        assertThat(p.due("acme", D, Instant.parse("2026-11-27T23:59:59Z"))).isFalse();
        assertThat(p.due("acme", D, Instant.parse("2026-11-28T00:00:00Z"))).isTrue();
    }

    @Test
    void zeroTurnsArchivingOffForATenantAndOthersKeepTheDefault() {
        ArchivePolicy p = new ArchivePolicy(7, Map.of("audit", 0, "fast", 1), Duration.ZERO);
        Instant later = Instant.parse("2027-06-01T00:00:00Z");

        assertThat(p.due("audit", D, later)).isFalse();
        assertThat(p.due("acme", D, later)).isTrue();
        assertThat(p.afterDays("fast")).isEqualTo(1);
    }

    @Test
    void theGraceAfterTheDayEndsIsWaitedFor() {
        ArchivePolicy p = new ArchivePolicy(1, Map.of(), Duration.ofDays(2));

        assertThat(p.due("acme", D, Instant.parse("2026-11-22T12:00:00Z"))).isFalse();
        assertThat(p.due("acme", D, Instant.parse("2026-11-23T00:00:00Z"))).isTrue();
    }

    @Test
    void negativeValuesAreRefusedNamingTheTenant() {
        assertThatThrownBy(() -> new ArchivePolicy(7, Map.of("acme", -1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("archive_after of tenant acme must be >= 0, was -1");
    }
}
