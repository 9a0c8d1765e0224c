package dev.logpipe.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class CredentialsTest {
    private static final String ADDRESS = "10.0.0.1";
    private static final String UNKNOWN = "no or unknown key";

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AuthFailures failures = new AuthFailures(new AuthFailures.Policy(60, 2, 1 << 20), nanos::get);
    private final AtomicInteger lookups = new AtomicInteger();
    private final Function<String, Optional<String>> tenants = key -> {
        lookups.incrementAndGet();
        return Optional.ofNullable(Map.of("key-a", "acme").get(key));
    };

    private Credentials.Refused refused(List<String> authorization) {
        return catchThrowableOfType(
                () -> Credentials.check(failures, authorization, ADDRESS, tenants, UNKNOWN), Credentials.Refused.class);
    }

    @Test
    void aKnownKeyNamesItsHolderAndCountsNoFailure() throws Exception {
        assertThat(Credentials.check(failures, List.of("Bearer key-a"), ADDRESS, tenants, UNKNOWN))
                .isEqualTo("acme");
        assertThat(failures.refused() + failures.throttled()).isZero();
    }

    @Test
    void noKeyAnUnknownOneAndTwoAre401ThenTheAddressIsThrottledWith429() {
        Credentials.Refused none = refused(List.of());
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.reason()).isEqualTo("unauthenticated");
        assertThat(none.getMessage()).isEqualTo(UNKNOWN);
        assertThat(none.retryAfterSeconds()).isZero();

        Credentials.Refused two = refused(List.of("Bearer key-a", "Bearer key-b"));
        assertThat(two.status()).isEqualTo(401);
        assertThat(two.reason()).isEqualTo("ambiguous_credentials");
        assertThat(two.getMessage()).isEqualTo(PresentedKey.AMBIGUOUS_MESSAGE);
        assertThat(lookups)
                .as("an ambiguous request is never resolved to one of its keys")
                .hasValue(0);

        Credentials.Refused throttled = refused(List.of("Bearer wrong"));
        assertThat(throttled.status()).isEqualTo(429);
        assertThat(throttled.reason()).isEqualTo("auth_failures");
        assertThat(throttled.getMessage()).startsWith("too many failed authentications");
        assertThat(throttled.retryAfter()).isPositive();
        assertThat(throttled.retryAfterSeconds()).isEqualTo(1);
        assertThat(failures.refused()).isEqualTo(2);
        assertThat(failures.throttled()).isEqualTo(1);
    }

    @Test
    void aValidKeyIsServedFromAThrottledAddress() throws Exception {
        refused(List.of("Bearer wrong"));
        refused(List.of("Bearer wrong"));
        assertThat(refused(List.of("Bearer wrong")).status()).isEqualTo(429);
        assertThat(Credentials.check(failures, List.of("Bearer key-a"), ADDRESS, tenants, UNKNOWN))
                .isEqualTo("acme");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(refused(List.of("Bearer wrong")).status()).as("refilled").isEqualTo(401);
    }
}
