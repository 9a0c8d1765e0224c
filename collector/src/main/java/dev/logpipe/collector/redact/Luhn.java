package dev.logpipe.collector.redact;

/** The Luhn check digit test, over the digits of a text (spaces and dashes between groups are ignored). */
final class Luhn {
    private Luhn() {
    }

    static boolean valid(CharSequence candidate) {
        int sum = 0;
        int digits = 0;
        for (int i = candidate.length() - 1; i >= 0; i--) {
            char c = candidate.charAt(i);
            if (c == ' ' || c == '-') {
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
