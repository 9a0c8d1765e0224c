package dev.logpipe.collector.internal.redact;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether a name (a field, a key in {@code key=value} text, a header) says that its value is a secret. The name is
 * split into lower-case parts at separators ({@code - _ .} and spaces) and at camelCase boundaries, so
 * {@code DB_PASSWORD}, {@code user-password}, {@code x_api_key}, {@code apiKey}, {@code headers.Cookie} and
 * {@code aws_secret_access_key} are all caught: a part that is a secret word, a part that ends in one
 * ({@code pgpassword}), or a secret pair of parts ({@code api key}, {@code private key}). A name with a part after
 * the secret one that describes the secret rather than holding it ({@code token_count}, {@code password_expires}) is not.
 */
final class SecretNames {
    private static final Set<String> WORDS = Set.of(
            "password",
            "passwd",
            "pwd",
            "pw",
            "pass",
            "passphrase",
            "passcode",
            "secret",
            "secrets",
            "token",
            "auth",
            "authorization",
            "credential",
            "credentials",
            "cookie",
            "cookies",
            "apikey",
            "bearer",
            "jwt",
            "privatekey",
            "secretkey",
            "accesskey",
            "sessionid",
            "signature");
    private static final String[] SUFFIXES = {"password", "passwd", "secret", "apikey", "token", "privatekey"};
    /** Two parts that together name a secret: the first, and the seconds that complete it. */
    private static final Map<String, Set<String>> PAIRS = Map.of(
            "api",
            Set.of("key"),
            "access",
            Set.of("key"),
            "private",
            Set.of("key"),
            "secret",
            Set.of("key"),
            "signing",
            Set.of("key"),
            "encryption",
            Set.of("key"),
            "master",
            Set.of("key"),
            "session",
            Set.of("id", "key"));

    private static final Set<String> DESCRIPTIVE = Set.of(
            "count",
            "type",
            "length",
            "len",
            "expires",
            "expiry",
            "ttl",
            "size",
            "limit",
            "kind",
            "name",
            "policy",
            "enabled",
            "required",
            "changed",
            "strength",
            "age",
            "used",
            "format",
            "id",
            "ids",
            "endpoint",
            "url",
            "uri",
            "path",
            "file",
            "version",
            "algorithm",
            "alg");

    private SecretNames() {}

    /** What a field name says of its value: one verdict per name, for both the secret and the card rules. */
    enum NameKind {
        /** A secret ({@code DB_PASSWORD}, {@code apiKey}): the value is masked whole. */
        SECRET,
        /**
         * A machine id, a time, an offset or a count and no card word ({@code dd.trace_id}, {@code epoch_ns}): the
         * value is not taken for a card number ({@link CardNumbers#saysId}).
         */
        ID,
        PLAIN
    }

    /** Verdicts by name: field names repeat from record to record. Bounded: cleared when full. */
    private static final ConcurrentHashMap<String, NameKind> CACHE = new ConcurrentHashMap<>();

    private static final int CACHE_SIZE = 8192;

    /** What {@code name} says of its value; one cache lookup for a name seen before. */
    static NameKind kind(String name) {
        NameKind known = CACHE.get(name);
        if (known != null) {
            return known;
        }
        List<String> parts = parts(name);
        NameKind verdict = isSecret(parts) ? NameKind.SECRET : CardNumbers.saysId(parts) ? NameKind.ID : NameKind.PLAIN;
        if (CACHE.size() >= CACHE_SIZE) {
            CACHE.clear();
        }
        if (name.length() <= 256) {
            CACHE.put(name, verdict);
        }
        return verdict;
    }

    static boolean isSecret(String name) {
        return kind(name) == NameKind.SECRET;
    }

    private static boolean isSecret(List<String> parts) {
        if (parts.isEmpty()) {
            return false;
        }
        for (int i = 0; i < parts.size(); i++) {
            String p = parts.get(i);
            boolean pair =
                    i + 1 < parts.size() && PAIRS.getOrDefault(p, Set.of()).contains(parts.get(i + 1));
            if (WORDS.contains(p) || endsWithSecret(p) || pair) {
                // "token_count", "password_expires": the name describes the secret rather than holding it.
                int secretEnd = pair ? i + 1 : i;
                boolean describesIt = false;
                for (int k = secretEnd + 1; k < parts.size(); k++) {
                    describesIt |= DESCRIPTIVE.contains(parts.get(k));
                }
                if (!describesIt) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean endsWithSecret(String part) {
        for (String s : SUFFIXES) {
            if (part.length() > s.length() && part.endsWith(s)) {
                return true;
            }
        }
        return false;
    }

    /** {@code "X-Api-Key"} -> [x, api, key]; {@code "userPassword"} -> [user, password]. */
    static List<String> parts(String name) {
        List<String> out = new ArrayList<>(4);
        int start = -1;
        for (int i = 0; i <= name.length(); i++) {
            char c = i < name.length() ? name.charAt(i) : ' ';
            boolean letterOrDigit = Character.isLetterOrDigit(c);
            boolean boundary = letterOrDigit
                    && start >= 0
                    && Character.isUpperCase(c)
                    && Character.isLowerCase(name.charAt(i - 1));
            if (!letterOrDigit || boundary) {
                if (start >= 0) {
                    // "PASSWORD2", "token1": a number on the end does not change what the part names.
                    int end = i;
                    while (end > start + 1 && Character.isDigit(name.charAt(end - 1))) {
                        end--;
                    }
                    out.add(name.substring(start, end).toLowerCase(Locale.ROOT));
                }
                start = letterOrDigit ? i : -1;
            } else if (start < 0) {
                start = i;
            }
        }
        return out;
    }
}
