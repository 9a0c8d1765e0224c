package dev.logpipe.auth;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * The API key a request presents, read by the one rule every logpipe API applies (ingest, query, whoami, admin, legal
 * holds; docs/configuration.md#credentials): exactly one {@code Authorization} header, {@code Bearer KEY} or
 * {@code Basic base64(any-user:KEY)}. Two headers, or one that a proxy folded from two ({@code Bearer a, Bearer b}),
 * are {@link Status#AMBIGUOUS}: refused with 401, never resolved to whichever came first.
 *
 * @param key the presented key when {@link Status#KEY}, else null
 */
public record PresentedKey(Status status, String key) {
    /** What the request presented. */
    public enum Status {
        /** No credential, or one of an unknown scheme or malformed: 401 like an unknown key. */
        NONE,
        /** One key: look it up. */
        KEY,
        /** More than one credential: 401 "ambiguous credentials", whatever the keys are. */
        AMBIGUOUS
    }

    /** The message an API answers an ambiguous request with (its 401 body). */
    public static final String AMBIGUOUS_MESSAGE =
            "ambiguous credentials: more than one Authorization header (or one folded from several); send exactly one";

    public static final PresentedKey NONE = new PresentedKey(Status.NONE, null);
    public static final PresentedKey AMBIGUOUS_KEY = new PresentedKey(Status.AMBIGUOUS, null);

    public PresentedKey {
        Objects.requireNonNull(status, "status");
        if ((status == Status.KEY) != (key != null)) {
            throw new IllegalArgumentException("a key comes with status KEY and only then, was " + status);
        }
    }

    /** The credential of a request whose {@code Authorization} header values (every one, in order) are given. */
    public static PresentedKey read(List<String> authorization) {
        if (authorization == null || authorization.isEmpty()) {
            return NONE;
        }
        if (authorization.size() > 1) {
            return AMBIGUOUS_KEY;
        }
        String v = authorization.get(0);
        if (v == null) {
            return NONE;
        }
        v = v.strip();
        // Repeated headers folded into one are joined with commas (RFC 9110 5.3); no key or base64 holds one.
        if (v.indexOf(',') >= 0) {
            return AMBIGUOUS_KEY;
        }
        if (v.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String k = v.substring(7).strip();
            return k.chars().anyMatch(Character::isWhitespace) ? NONE : key(k); // a token has no spaces
        }
        if (v.regionMatches(true, 0, "Basic ", 0, 6)) {
            byte[] decoded;
            try {
                decoded = Base64.getDecoder().decode(v.substring(6).strip());
            } catch (IllegalArgumentException e) {
                return NONE;
            }
            String pair = new String(decoded, StandardCharsets.UTF_8);
            int colon = pair.indexOf(':');
            return colon < 0 ? NONE : key(pair.substring(colon + 1));
        }
        return NONE;
    }

    private static PresentedKey key(String k) {
        return k.isEmpty() ? NONE : new PresentedKey(Status.KEY, k);
    }

    @Override
    public String toString() {
        return "PresentedKey[" + status + "]"; // never the key
    }
}
