package dev.logpipe.collector.internal.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.collector.config.CollectorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TenantLimitsTest {
    private static CollectorConfig.Tenant tenant(long recordsPerSecond, long bytesPerSecond) {
        return new CollectorConfig.Tenant(
                "t", List.of("0".repeat(64)), List.of(), recordsPerSecond, bytesPerSecond, Duration.ofSeconds(1), 0);
    }

    @Test
    void oneRequestMayFinishInDebtWhileAParallelOneStopsAtTheBucket() {
        TenantLimits limits = new TenantLimits(List.of(tenant(10, 0)), Duration.ofSeconds(60));
        try (TenantLimits.Charge first = limits.open("t");
                TenantLimits.Charge second = limits.open("t")) {
            int firstTook = 0;
            while (firstTook < 5 && first.takeRecord()) {
                firstTook++;
            }
            int secondTook = 0;
            while (secondTook < 5_000 && second.takeRecord()) {
                secondTook++;
            }
            assertThat(secondTook)
                    .as("the second becomes the debtor and takes its whole batch")
                    .isEqualTo(5_000);
            int more = 0;
            while (more < 5_000 && first.takeRecord()) {
                more++;
            }
            assertThat(firstTook + more)
                    .as("the first stops once the bucket is dry")
                    .isLessThanOrEqualTo(10);
            assertThat(first.exhausted()).isEqualTo("records_per_second");
        }
        TenantLimits.Refusal r = limits.admit("t");
        assertThat(r).isNotNull();
        assertThat(r.limit()).isEqualTo("records_per_second");
        assertThat(r.retryAfter())
                .as("the real refill time of ~5,000 records at 10/s is capped")
                .isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void retryAfterIsTheTimeTheBucketReallyNeeds() {
        TenantLimits limits = new TenantLimits(List.of(tenant(100, 0)), Duration.ofSeconds(60));
        try (TenantLimits.Charge c = limits.open("t")) {
            for (int i = 0; i < 150; i++) {
                assertThat(c.takeRecord()).isTrue(); // 100 from the bucket, then 50 in debt
            }
        }
        Duration wait = limits.admit("t").retryAfter();
        assertThat(wait).isBetween(Duration.ofMillis(400), Duration.ofMillis(520));
    }

    @Test
    void unusedTokensAreGivenBackWhenTheRequestEnds() {
        TenantLimits limits = new TenantLimits(List.of(tenant(1_000, 0)), Duration.ofSeconds(60));
        for (int request = 0; request < 100; request++) {
            try (TenantLimits.Charge c = limits.open("t")) {
                assertThat(c.takeRecord()).isTrue(); // takes a chunk of 64, uses 1
            }
        }
        assertThat(limits.admit("t"))
                .as("100 records of 1,000 used, the chunks returned")
                .isNull();
    }

    @Test
    void wireBytesAreChargedAsTheyArriveAndTheBytesLimitStopsARequest() {
        TenantLimits limits = new TenantLimits(List.of(tenant(0, 1_000)), Duration.ofSeconds(60));
        try (TenantLimits.Charge debtor = limits.open("t");
                TenantLimits.Charge other = limits.open("t")) {
            assertThat(debtor.takeBytes(1_500)).isTrue();
            assertThat(other.takeBytes(10)).isFalse();
            assertThat(other.exhausted()).isEqualTo("bytes_per_second");
        }
        assertThat(limits.admit("t").limit()).isEqualTo("bytes_per_second");
    }

    @Test
    void aTenantWithoutLimitsIsNeverStopped() {
        TenantLimits limits = new TenantLimits(List.of(tenant(0, 0)), Duration.ofSeconds(60));
        try (TenantLimits.Charge c = limits.open("t")) {
            for (int i = 0; i < 10_000; i++) {
                assertThat(c.takeRecord()).isTrue();
            }
            assertThat(c.takeBytes(1L << 40)).isTrue();
        }
        assertThat(limits.admit("t")).isNull();
    }

    @Test
    void aRequestCannotBecomeTheNextDebtorWhileTheBucketStillPaysAnEarlierDebt() {
        TenantLimits limits = new TenantLimits(List.of(tenant(10, 0)), Duration.ofSeconds(60));
        TenantLimits.Charge waiting = limits.open("t"); // admitted early, sends its first line later
        try (TenantLimits.Charge first = limits.open("t")) {
            for (int i = 0; i < 1_000; i++) {
                assertThat(first.takeRecord()).isTrue(); // the debtor: 10 from the bucket, 990 in debt
            }
        }
        assertThat(waiting.takeRecord())
                .as("the bucket is 990 in debt: no second debtor")
                .isFalse();
        waiting.close();
    }

    @Test
    void anUpdateAppliesChangedLimitsAtOnceAndKeepsTheBucketsOfUnchangedOnes() {
        CollectorConfig.Tenant other =
                new CollectorConfig.Tenant("o", List.of("1".repeat(64)), List.of(), 10, 0, Duration.ofSeconds(1), 0);
        TenantLimits limits = new TenantLimits(List.of(tenant(0, 0), other), Duration.ofSeconds(60));
        drain(limits, "o", 10);
        assertThat(limits.admit("o")).isNotNull();
        assertThat(drain(limits, "t", 1_000)).as("t unlimited").isEqualTo(1_000);

        limits.update(List.of(tenant(10, 0), other));
        assertThat(drain(limits, "t", 1_000))
                .as("t limited at once: a full bucket of 10, then one request in debt")
                .isEqualTo(1_000);
        assertThat(limits.admit("t")).isNotNull();
        assertThat(limits.admit("o")).as("o unchanged: still dry").isNotNull();

        limits.update(List.of(other));
        assertThat(limits.admit("t"))
                .as("a tenant not listed is no longer limited")
                .isNull();
        assertThat(drain(limits, "t", 1_000)).isEqualTo(1_000);
    }

    private static int drain(TenantLimits limits, String tenant, int max) {
        int took = 0;
        try (TenantLimits.Charge c = limits.open(tenant)) {
            while (took < max && c.takeRecord()) {
                took++;
            }
        }
        return took;
    }
}
