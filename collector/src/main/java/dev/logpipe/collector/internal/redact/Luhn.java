package dev.logpipe.collector.internal.redact;

/** The Luhn check digit test, over the digits of a text (spaces and dashes between groups are ignored). */
final class Luhn {
    private Luhn() {}

    /**
     * For a digit run longer than a usual card (17-19 digits, e.g. a card followed by a CVC or preceded by a
     * quantity): whether its first or last 13-16 digits pass the check. Shorter runs are judged whole, so ordinary
     * 16-digit numbers are not flagged by some window that happens to pass.
     */
    static boolean anyWindowValid(CharSequence candidate) {
        StringBuilder digits = new StringBuilder(candidate.length());
        for (int i = 0; i < candidate.length(); i++) {
            char c = candidate.charAt(i);
            if (c >= '0' && c <= '9') {
                digits.append(c);
            }
        }
        int n = digits.length();
        if (n <= 16) {
            return false;
        }
        for (int len = 13; len <= 16; len++) {
            if (valid(digits.subSequence(0, len)) || valid(digits.subSequence(n - len, n))) {
                return true;
            }
        }
        return false;
    }

    static boolean valid(CharSequence candidate) {
        int sum = 0;
        int digits = 0;
        for (int i = candidate.length() - 1; i >= 0; i--) {
            char c = candidate.charAt(i);
            if (c == ' ' || c == '-' || c == '.') {
                continue;
            }
            if (c < '0' || c > '9') {
                return false;
            }
            int d = c - '0';
            if (digits % 2 == 1) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            digits++;
        }
        return digits >= 13 && digits <= 19 && sum % 10 == 0;
    }
}
