package dev.logpipe.collector.internal.redact;

/**
 * One pass over a value that tells which built-in rules could match it (a bit each), so that a value with none of
 * their markers costs one scan and no regex: RE2/J's matcher costs microseconds per value, the scan nanoseconds.
 * A bit may be set where the rule then finds nothing; a rule whose bit is clear can never match.
 */
final class Triggers {
    static final int PEM = 1;
    static final int BEARER = 1 << 1;
    static final int BASIC = 1 << 2;
    static final int URL = 1 << 3;
    static final int JWT = 1 << 4;
    static final int GITHUB = 1 << 5;
    static final int GITLAB = 1 << 6;
    static final int SLACK = 1 << 7;
    static final int STRIPE = 1 << 8;
    static final int GOOGLE = 1 << 9;
    static final int AWS = 1 << 10;
    static final int PAIR = 1 << 11;
    static final int CARD = 1 << 12;
    static final int ALWAYS = ~0;

    private Triggers() {}

    static int of(String t) {
        int mask = 0;
        int digits = 0;
        int separators = 0;
        int upperRun = 0;
        int n = t.length();
        for (int i = 0; i < n; i++) {
            char c = t.charAt(i);
            if (c >= '0' && c <= '9') {
                separators = 0;
                if (++digits >= 13) {
                    mask |= CARD;
                }
            } else if ((c == ' ' || c == '-' || c == '.') && digits > 0 && separators < 2) {
                separators++;
            } else {
                digits = 0;
                separators = 0;
            }
            upperRun = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? upperRun + 1 : 0;
            if (upperRun >= 20) {
                mask |= AWS;
            }
            switch (c) {
                case '=' -> mask |= PAIR;
                case ':' -> {
                    mask |= PAIR;
                    if (i + 2 < n && t.charAt(i + 1) == '/' && t.charAt(i + 2) == '/' || t.startsWith(":\\/\\/", i)) {
                        mask |= URL;
                    }
                }
                case '-' -> {
                    if (t.startsWith("-----BEGIN", i)) {
                        mask |= PEM;
                    }
                }
                case 'b', 'B' -> {
                    if (t.regionMatches(true, i, "bearer", 0, 6)) {
                        mask |= BEARER;
                    } else if (t.regionMatches(true, i, "basic", 0, 5)) {
                        mask |= BASIC;
                    }
                }
                case 'e' -> {
                    if (t.startsWith("eyJ", i)) {
                        mask |= JWT;
                    }
                }
                case 'g' -> {
                    if (i + 3 < n && t.charAt(i + 1) == 'h' && t.charAt(i + 3) == '_'
                            || t.startsWith("github_pat_", i)) {
                        mask |= GITHUB;
                    } else if (t.startsWith("glpat-", i)) {
                        mask |= GITLAB;
                    }
                }
                case 'x' -> {
                    if (t.startsWith("xox", i)) {
                        mask |= SLACK;
                    }
                }
                case '_' -> {
                    if (t.startsWith("_live_", i) || t.startsWith("_test_", i) || t.startsWith("whsec_", i - 5)) {
                        mask |= STRIPE;
                    }
                }
                case 'A' -> {
                    if (t.startsWith("AIza", i)) {
                        mask |= GOOGLE;
                    }
                }
                default -> {}
            }
        }
        return mask;
    }
}
