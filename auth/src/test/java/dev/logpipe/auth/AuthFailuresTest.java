package dev.logpipe.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AuthFailuresTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private AuthFailures failures(long perMinute, long burst, long bytes) {
        return new AuthFailures(new AuthFailures.Policy(perMinute, burst, bytes), nanos::get);
    }

    @Test
    void anAddressOverItsBurstIsThrottledUntilItsBucketRefills() {
        AuthFailures f = failures(60, 3, 1 << 20);
        for (int i = 0; i < 3; i++) {
            assertThat(f.failed("10.0.0.1")).isEmpty();
        }
        Optional<Duration> wait = f.failed("10.0.0.1");
        assertThat(wait)
                .hasValueSatisfying(d -> assertThat(d).isBetween(Duration.ofMillis(900), Duration.ofSeconds(1)));
        assertThat(AuthFailures.retryAfterSeconds(wait.get())).isEqualTo(1);
        assertThat(f.failed("10.0.0.2"))
                .as("another address has its own bucket")
                .isEmpty();
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(f.failed("10.0.0.1")).isEmpty();
        assertThat(f.failed("10.0.0.1")).isPresent();
        assertThat(f.refused()).isEqualTo(5);
        assertThat(f.throttled()).isEqualTo(2);
    }

    @Test
    void oneIpv6SlashSixtyFourIsOneAddress() {
        AuthFailures f = failures(60, 2, 1 << 20);
        assertThat(f.failed("2001:db8:1:2::1")).isEmpty();
        assertThat(f.failed("[2001:db8:1:2:ffff::9]")).isEmpty();
        assertThat(f.failed("2001:db8:1:2:abcd::1")).isPresent();
        assertThat(f.failed("2001:db8:1:3::1")).isEmpty();
        assertThat(AuthFailures.addressKey("::ffff:192.0.2.7")).isEqualTo("192.0.2.7");
        assertThat(AuthFailures.addressKey(null)).isEqualTo("unknown");
    }

    @Test
    void aFullTableDropsOnlyRefilledAddressesAndOtherwiseSharesOneBucket() {
        AuthFailures f = failures(60, 2, 2 * AuthFailures.ENTRY_BYTES); // room for two addresses
        f.failed("10.0.0.1");
        f.failed("10.0.0.2");
        assertThat(f.tracked()).isEqualTo(2);
        // both still paying: new addresses share the overflow bucket and cannot reset anyone's
        assertThat(f.failed("10.0.0.3")).isEmpty();
        assertThat(f.failed("10.0.0.4")).isEmpty();
        assertThat(f.failed("10.0.0.5")).isPresent();
        assertThat(f.overflowed()).isEqualTo(3);
        assertThat(f.tracked()).isEqualTo(2);
        nanos.addAndGet(Duration.ofSeconds(2).toNanos()); // the eldest refilled: it holds nothing and may go
        assertThat(f.failed("10.0.0.6")).isEmpty();
        assertThat(f.tracked()).isEqualTo(2);
        assertThat(f.overflowed()).isEqualTo(3);
    }

    @Test
    void zeroPerMinuteTurnsItOff() {
        AuthFailures f = failures(0, 1, 1 << 20);
        for (int i = 0; i < 100; i++) {
            assertThat(f.failed("10.0.0.1")).isEmpty();
        }
    }

    @Test
    void thePolicyIsReadWithKeyPathsAndBytes() throws Exception {
        AuthFailures.Policy p = AuthFailures.Policy.read(ConfigNode.fromYaml(
                        "auth:\n  failures_per_minute: 30\n  failure_burst: 5\n  max_tracked_bytes: 1MiB\n", "t")
                .child("auth"));
        assertThat(p).isEqualTo(new AuthFailures.Policy(30, 5, 1 << 20));
        assertThat(p.maxAddresses()).isEqualTo(2048);
        assertThatThrownBy(() -> AuthFailures.Policy.read(
                        ConfigNode.fromYaml("auth:\n  failure_burst: 0\n", "t").child("auth")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("auth.failure_burst");
        assertThatThrownBy(() -> AuthFailures.Policy.read(
                        ConfigNode.fromYaml("auth:\n  per_minute: 3\n", "t").child("auth")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("auth.per_minute");
    }

    @Test
    void theCountsAreMetrics() {
        AuthFailures f = failures(60, 1, 1 << 20);
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        f.register(r);
        f.failed("10.0.0.1");
        f.failed("10.0.0.1");
        assertThat(r.get("logpipe.auth.failures")
                        .tag("outcome", "throttled")
                        .functionCounter()
                        .count())
                .isEqualTo(1.0);
        assertThat(r.get("logpipe.auth.failures")
                        .tag("outcome", "refused")
                        .functionCounter()
                        .count())
                .isEqualTo(1.0);
        assertThat(r.get("logpipe.auth.failure.addresses").gauge().value()).isEqualTo(1.0);
    }
}
