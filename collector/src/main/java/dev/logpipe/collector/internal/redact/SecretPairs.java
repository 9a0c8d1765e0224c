package dev.logpipe.collector.internal.redact;

import java.util.Arrays;

/**
 * {@code name=value} and {@code name: value} pairs in free text whose name is a secret name ({@link SecretNames}):
 * the value is replaced, the name and separator kept. Values may be quoted ({@code "..."}, {@code '...'}, and
 * {@code \"...\"} inside JSON text, which is how a dead-lettered line is seen) or run to a space, {@code , ; &}
 * or a closing bracket. A value that is an HTTP scheme word ({@code Authorization: Negotiate abc}) takes the next
 * word with it. Runs in one pass over the separators; a URL's {@code ://} is not a separator.
 */
final class SecretPairs {
    static final String RULE = "secret_pair";
    private static final String MARK = "[REDACTED:" + RULE + "]";

    private SecretPairs() {}

    /** {@code text} with every secret pair's value replaced; {@code count[0]} is incremented per replacement. */
    static String redact(String text, int[] count) {
        // Spans to replace, in order of their start; a value may hold further pairs (password: password: 'x'), and
        // every separator is looked at, so overlapping spans are merged when the text is rebuilt.
        int[] spans = null;
        int found = 0;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c != '=' && c != ':') {
                continue;
            }
            if (c == ':' && i + 2 < n && text.charAt(i + 1) == '/' && text.charAt(i + 2) == '/') {
                continue; // scheme://
            }
            int nameEnd = i;
            while (nameEnd > 0 && text.charAt(nameEnd - 1) == ' ') {
                nameEnd--;
            }
            if (nameEnd > 0 && (text.charAt(nameEnd - 1) == '"' || text.charAt(nameEnd - 1) == '\'')) {
                nameEnd--;
            }
            if (nameEnd > 0 && text.charAt(nameEnd - 1) == '\\') {
                nameEnd--;
            }
            int nameStart = nameEnd;
            while (nameStart > 0 && nameEnd - nameStart < 64 && isNameChar(text.charAt(nameStart - 1))) {
                nameStart--;
            }
            if (nameStart == nameEnd) {
                continue;
            }
            if (!SecretNames.isSecret(text.substring(nameStart, nameEnd))) {
                // "API key: x", "session id = x": the name may be two words.
                int wordStart = nameStart - 1;
                if (wordStart < 1 || text.charAt(wordStart) != ' ' || !isNameChar(text.charAt(wordStart - 1))) {
                    continue;
                }
                while (wordStart > 0 && nameEnd - wordStart < 64 && isNameChar(text.charAt(wordStart - 1))) {
                    wordStart--;
                }
                if (!SecretNames.isSecret(text.substring(wordStart, nameEnd))) {
                    continue;
                }
            }
            int v = i + 1;
            // "password => 'x'", "password := x", "password == x": the rest of the operator and spaces.
            while (v < n
                    && (text.charAt(v) == ' '
                            || text.charAt(v) == '>'
                            || text.charAt(v) == '='
                            || text.charAt(v) == ':')) {
                v++;
            }
            int[] span = value(text, v);
            if (span == null || text.startsWith("[REDACTED", span[0])) {
                continue;
            }
            if (spans == null) {
                spans = new int[8];
            } else if (found * 2 == spans.length) {
                spans = Arrays.copyOf(spans, spans.length * 2);
            }
            spans[found * 2] = span[0];
            spans[found * 2 + 1] = span[1];
            found++;
        }
        if (found == 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(n + 16);
        int copied = 0;
        for (int k = 0; k < found; k++) {
            int start = spans[2 * k];
            int end = spans[2 * k + 1];
            if (start < copied) {
                // Inside (or overlapping) the span just replaced: extend it.
                copied = Math.max(copied, end);
                continue;
            }
            out.append(text, copied, start).append(MARK);
            copied = end;
            count[0]++;
        }
        return out.append(text, copied, n).toString();
    }

    /** The value starting at {@code v}: [start, end) of what is replaced (inside its quotes), or null if empty. */
    private static int[] value(String t, int v) {
        int n = t.length();
        if (v >= n) {
            return null;
        }
        char q = t.charAt(v);
        if (q == '\\' && v + 1 < n && t.charAt(v + 1) == '"') {
            int end = t.indexOf("\\\"", v + 2);
            return span(v + 2, end < 0 ? n : end);
        }
        if (q == '"' || q == '\'') {
            int end = v + 1;
            while (end < n && t.charAt(end) != q) {
                end += t.charAt(end) == '\\' ? 2 : 1;
            }
            return span(v + 1, Math.min(end, n));
        }
        int end = runEnd(t, v);
        if (end > v && end - v <= 16 && isSchemeWord(t, v, end) && end + 1 < n && t.charAt(end) == ' ') {
            if (t.startsWith("[REDACTED", end + 1)) {
                return null; // "Authorization: Bearer [REDACTED:bearer_token]": its rule took it already
            }
            int next = runEnd(t, end + 1);
            if (next > end + 1) {
                return span(v, next);
            }
        }
        return span(v, end);
    }

    private static int[] span(int start, int end) {
        return end > start ? new int[] {start, end} : null;
    }

    private static int runEnd(String t, int from) {
        int end = from;
        while (end < t.length() && !isDelimiter(t.charAt(end))) {
            end++;
        }
        return end;
    }

    private static boolean isSchemeWord(String t, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Character.isLetter(t.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDelimiter(char c) {
        return Character.isWhitespace(c)
                || c == ','
                || c == ';'
                || c == '&'
                || c == '"'
                || c == '\''
                || c == '\\'
                || c == '}'
                || c == ']'
                || c == ')';
    }

    private static boolean isNameChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.';
    }
}
