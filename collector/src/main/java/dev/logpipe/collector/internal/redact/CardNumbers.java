package dev.logpipe.collector.internal.redact;

import java.util.List;
import java.util.Set;

/**
 * Payment card numbers as they really look (docs/collector.md#card-numbers), so that long numbers which are not cards
 * (trace and span ids, epoch times, offsets, counters) are left alone: the issuer prefix and length of a real
 * network, the Luhn check, digits written whole or in the groups card numbers are printed in (4-4-4-4, 4-6-5, ...),
 * not part of a longer run of letters, digits or digit groups, and not right after a name that says what the number
 * is when that is a machine id, a time, an offset or a count ({@code trace_id=}, {@code offset }). Stateless and
 * thread-safe; field names are judged by {@link SecretNames#kind}.
 */
final class CardNumbers {
    static final String RULE = "card_number";
    static final String MARK = "[REDACTED:" + RULE + "]";

    /**
     * Name parts after which a number is what they say, not a card: machine ids, times, offsets and machine
     * measures only. Words people put before any number ({@code number}, {@code no}, {@code ref}, {@code order},
     * {@code total}, {@code phone}) are not here: {@code acct number 4111...} is a card, and an order "number" that
     * is a card number in every respect is redacted (failing closed, invariant I5).
     */
    private static final Set<String> ID_WORDS = Set.of(
            "id",
            "ids",
            "uuid",
            "guid",
            "trace",
            "traceid",
            "span",
            "spanid",
            "parent",
            "parentid",
            "offset",
            "offsets",
            "seq",
            "seqno",
            "sequence",
            "ts",
            "timestamp",
            "time",
            "epoch",
            "nanos",
            "nano",
            "ns",
            "us",
            "ms",
            "millis",
            "micros",
            "duration",
            "elapsed",
            "latency",
            "bytes",
            "size",
            "count",
            "counter",
            "pid",
            "tid",
            "uid",
            "gid",
            "imei",
            "version",
            "build",
            "port",
            "partition",
            "lsn",
            "checksum",
            "hash",
            "crc");
    /** Name parts that say a number is a card, whatever else the name says ({@code card_id}, {@code pan_number}). */
    private static final Set<String> CARD_WORDS = Set.of(
            "card",
            "cards",
            "cc",
            "ccn",
            "pan",
            "visa",
            "mastercard",
            "amex",
            "credit",
            "debit",
            "cardnumber",
            "creditcard",
            "payment");

    private CardNumbers() {}

    /** Whether {@code digits} (ASCII digits only) is a card number of a real network that passes the Luhn check. */
    static boolean isCard(CharSequence digits) {
        int n = digits.length();
        if (n < 13 || n > 19) {
            return false;
        }
        int p2 = prefix(digits, 2);
        int p3 = prefix(digits, 3);
        int p4 = prefix(digits, 4);
        int p6 = prefix(digits, 6);
        boolean network = switch (digits.charAt(0)) {
            case '4' -> n == 13 || n == 16 || n == 19; // Visa
            case '5' ->
                (p2 >= 51 && p2 <= 55 && n == 16) // Mastercard
                        || (p4 == 5018 || p4 == 5020 || p4 == 5038 || p4 == 5893); // Maestro
            case '2' ->
                (p4 >= 2221 && p4 <= 2720 && n == 16) // Mastercard 2-series
                        || (p4 >= 2200 && p4 <= 2204 && n >= 16); // Mir
            case '3' ->
                ((p2 == 34 || p2 == 37) && n == 15) // American Express
                        || (p4 >= 3528 && p4 <= 3589 && n >= 16) // JCB
                        || (((p3 >= 300 && p3 <= 305) || p4 == 3095 || p2 == 36 || p2 == 38 || p2 == 39)
                                && n >= 14); // Diners Club
            case '6' ->
                ((p4 == 6011 || (p3 >= 644 && p3 <= 649) || p2 == 65 || (p6 >= 622126 && p6 <= 622925))
                                && n >= 16) // Discover
                        || (p2 == 62 && n >= 16) // UnionPay
                        || (p4 == 6304 || p4 == 6759 || p4 == 6761 || p4 == 6762 || p4 == 6763); // Maestro
            default -> false;
        };
        return network && luhn(digits);
    }

    static boolean luhn(CharSequence digits) {
        int sum = 0;
        for (int i = digits.length() - 1, k = 0; i >= 0; i--, k++) {
            int d = digits.charAt(i) - '0';
            if (k % 2 == 1) {
                d = d * 2 > 9 ? d * 2 - 9 : d * 2;
            }
            sum += d;
        }
        return sum % 10 == 0;
    }

    private static int prefix(CharSequence digits, int len) {
        int v = 0;
        for (int i = 0; i < len; i++) {
            v = v * 10 + (digits.charAt(i) - '0');
        }
        return v;
    }

    /**
     * Whether name parts ({@link SecretNames#parts}) say a value is a machine id, a time, an offset or a count
     * ({@code dd.trace_id}, {@code kafka.offset}, {@code epoch_ns}, {@code bytes_sent}) and not a card
     * ({@code card_id} is a card). Field names are judged once, through {@link SecretNames#kind}.
     */
    static boolean saysId(List<String> parts) {
        boolean id = false;
        for (String p : parts) {
            if (CARD_WORDS.contains(p)) {
                return false;
            }
            id |= ID_WORDS.contains(p);
        }
        return id;
    }

    /** {@code text} with every card number in it replaced by {@link #MARK}; {@code count[0]} counts them. */
    static String redact(String text, int[] count) {
        StringBuilder out = null;
        int copied = 0;
        int n = text.length();
        int i = 0;
        while (i < n) {
            if (!isDigit(text, i) || isDigit(text, i - 1)) {
                i++;
                continue;
            }
            Chain c = Chain.at(text, i);
            int matchedTo = c.redactFrom(text);
            if (matchedTo < 0) {
                i = c.end;
                continue;
            }
            // a match inside the chain: [matchStart, matchedTo)
            if (out == null) {
                out = new StringBuilder(n);
            }
            out.append(text, copied, c.matchStart).append(MARK);
            copied = matchedTo;
            count[0]++;
            i = matchedTo;
        }
        if (out == null) {
            return text;
        }
        return out.append(text, copied, n).toString();
    }

    private static boolean isDigit(String t, int i) {
        return i >= 0 && i < t.length() && t.charAt(i) >= '0' && t.charAt(i) <= '9';
    }

    /**
     * Digit groups joined by separators of one or two characters of {@code ' ' '-' '.'} (a card is printed so), from a
     * group's first digit. Up to 12 groups are looked at; a card has at most 5.
     */
    private static final class Chain {
        final int[] from = new int[12];
        final int[] to = new int[12];
        int groups;
        /** Where the chain (its last group) ends. */
        int end;

        int matchStart;

        static Chain at(String t, int start) {
            Chain c = new Chain();
            int i = start;
            while (true) {
                int g = i;
                while (isDigit(t, i)) {
                    i++;
                }
                c.from[c.groups] = g;
                c.to[c.groups] = i;
                c.groups++;
                c.end = i;
                int s = i;
                while (s < t.length() && s - i < 2 && isSeparator(t.charAt(s))) {
                    s++;
                }
                if (s == i || !isDigit(t, s) || c.groups == c.from.length) {
                    return c;
                }
                i = s;
            }
        }

        private static boolean isSeparator(char ch) {
            return ch == ' ' || ch == '-' || ch == '.';
        }

        String sep(String t, int afterGroup) {
            return t.substring(to[afterGroup], from[afterGroup + 1]);
        }

        /**
         * The end of the first card found in this chain (its CVC included), with {@link #matchStart} set, or -1.
         * Starts are tried from the first group on, the longest card first.
         */
        int redactFrom(String t) {
            for (int s = 0; s < groups; s++) {
                for (int e = groups - 1; e >= s; e--) {
                    int end = card(t, s, e);
                    if (end >= 0) {
                        matchStart = from[s];
                        return end;
                    }
                }
            }
            return -1;
        }

        /** The end of groups {@code s..e} (and a CVC after them) when they are a card, else -1. */
        private int card(String t, int s, int e) {
            int digits = 0;
            for (int g = s; g <= e; g++) {
                digits += to[g] - from[g];
            }
            if (digits < 13 || digits > 19) {
                return -1;
            }
            String sep = e > s ? sep(t, s) : null;
            for (int g = s; g < e; g++) {
                if (!sep(t, g).equals(sep)) {
                    return -1; // one separator throughout, as printed
                }
            }
            if (e > s && !printedLayout(s, e)) {
                return -1;
            }
            StringBuilder d = new StringBuilder(digits);
            for (int g = s; g <= e; g++) {
                d.append(t, from[g], to[g]);
            }
            if (!isCard(d)) {
                return -1;
            }
            // bounds: not glued to letters or digits, not one part of a longer grouped or decimal number
            if (s == 0) {
                if (from[0] > 0 && Character.isLetterOrDigit(t.charAt(from[0] - 1))) {
                    return -1;
                }
            } else {
                String before = sep(t, s - 1);
                boolean sameGroups = sep != null && before.equals(sep) && to[s - 1] - from[s - 1] == 4;
                if (sameGroups || (sep == null && !before.equals(" "))) {
                    return -1; // "1234 4111 1111 1111 1111", "0.4111111111111111"
                }
            }
            int stop = to[e];
            if (e < groups - 1) {
                String after = sep(t, e);
                int next = to[e + 1] - from[e + 1];
                if (e + 1 == groups - 1 && (next == 3 || next == 4) && !gluedAfter(t, to[e + 1])) {
                    stop = to[e + 1]; // a CVC after the card goes with it
                } else if ((sep != null && after.equals(sep)) || (sep == null && !after.equals(" "))) {
                    return -1; // part of a longer grouped number, or "4111111111111111.5"
                }
            } else if (gluedAfter(t, stop)) {
                return -1;
            }
            return contextSaysId(t, from[s]) ? -1 : stop;
        }

        /** 4-4-4-4 and the like (fours and a shorter last group), 4-6-5 (American Express), 4-6-4 (Diners Club). */
        private boolean printedLayout(int s, int e) {
            int count = e - s + 1;
            if (count == 3 && to[s] - from[s] == 4 && to[s + 1] - from[s + 1] == 6) {
                int last = to[e] - from[e];
                return last == 5 || last == 4;
            }
            for (int g = s; g < e; g++) {
                if (to[g] - from[g] != 4) {
                    return false;
                }
            }
            int last = to[e] - from[e];
            return last >= 1 && last <= 4;
        }

        private static boolean gluedAfter(String t, int at) {
            return at < t.length() && Character.isLetterOrDigit(t.charAt(at));
        }
    }

    /**
     * Whether the one or two names right before {@code at} ({@code trace_id=}, {@code "span_id":"},
     * {@code kafka offset }) say that the number is a machine id, a time, an offset or a count, and none says card.
     */
    static boolean contextSaysId(String t, int at) {
        int i = at;
        boolean id = false;
        for (int word = 0; word < 2; word++) {
            int gap = 0;
            while (i > 0 && gap < 4 && " \t\"'=:#>([{,/".indexOf(t.charAt(i - 1)) >= 0) {
                i--;
                gap++;
            }
            int end = i;
            while (i > 0 && (Character.isLetterOrDigit(t.charAt(i - 1)) || "_.-".indexOf(t.charAt(i - 1)) >= 0)) {
                i--;
            }
            if (i == end) {
                break;
            }
            for (String p : SecretNames.parts(t.substring(i, end))) {
                if (CARD_WORDS.contains(p)) {
                    return false;
                }
                id |= ID_WORDS.contains(p);
            }
        }
        return id;
    }
}
