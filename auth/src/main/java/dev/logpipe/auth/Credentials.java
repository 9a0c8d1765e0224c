package dev.logpipe.auth;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one credential check of every logpipe API: read the presented key ({@link PresentedKey}), look it up, and on
 * failure count it against the client address ({@link AuthFailures}), answering {@link Refused}: 429
 * {@code auth_failures} with a Retry-After once the address failed too often, else 401 {@code ambiguous_credentials}
 * or {@code unauthenticated}. Each API maps a refusal to its own answer type. Stateless; thread-safe.
 */
public final class Credentials {
    private Credentials() {}

    /**
     * The refusal of a request's credentials. {@link #getMessage()} is the answer's message (never a key); it carries
     * no stack trace (an answer, and cheap on the path a guesser drives).
     */
    public static final class Refused extends Exception {
        private final int status;
        private final String reason;
        private final Duration retryAfter;

        Refused(int status, String reason, String message, Duration retryAfter) {
            super(message, null, false, false);
            this.status = status;
            this.reason = reason;
            this.retryAfter = retryAfter;
        }

        /** 401, or 429 for a throttled address. */
        public int status() {
            return status;
        }

        /** {@code unauthenticated}, {@code ambiguous_credentials} or {@code auth_failures}. */
        public String reason() {
            return reason;
        }

        /** How long until the address may fail again (a 429's Retry-After); zero for a 401. */
        public Duration retryAfter() {
            return retryAfter;
        }

        /** Whole seconds for the Retry-After header of a 429; 0 for a 401 (send none). */
        public long retryAfterSeconds() {
            return status == 429 ? AuthFailures.retryAfterSeconds(retryAfter) : 0;
        }
    }

    /**
     * Who a request's credential names.
     *
     * @param authorization every {@code Authorization} header value of the request, in order
     * @param address       the client address as the server reports it (an IP literal)
     * @param lookup        the holder of a presented key, empty when the key is unknown (or not valid for this API)
     * @param unknown       the 401 message for no key or an unknown one
     * @throws Refused the credential is missing, unknown or ambiguous (counted against {@code address})
     */
    public static <T> T check(
            AuthFailures failures,
            List<String> authorization,
            String address,
            Function<String, Optional<T>> lookup,
            String unknown)
            throws Refused {
        PresentedKey presented = PresentedKey.read(authorization);
        Optional<T> who =
                presented.status() == PresentedKey.Status.KEY ? lookup.apply(presented.key()) : Optional.empty();
        if (who.isPresent()) {
            return who.get();
        }
        Optional<Duration> wait = failures.failed(address);
        if (wait.isPresent()) {
            throw new Refused(429, "auth_failures", AuthFailures.message(wait.get()), wait.get());
        }
        if (presented.status() == PresentedKey.Status.AMBIGUOUS) {
            throw new Refused(401, "ambiguous_credentials", PresentedKey.AMBIGUOUS_MESSAGE, Duration.ZERO);
        }
        throw new Refused(401, "unauthenticated", unknown, Duration.ZERO);
    }
}
