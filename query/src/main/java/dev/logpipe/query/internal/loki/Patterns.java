package dev.logpipe.query.internal.loki;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code | pattern "<ip> - <_> <msg>"} parser: literals and named captures ({@code <_>} captures nothing). A
 * capture takes the text up to the next literal (the last one takes the rest); a line that does not fit adds nothing.
 */
final class Patterns {
    /** One part: a literal, or a capture (its name, {@code _} for none). */
    record Part(String literal, String capture) {}

    private Patterns() {}

    static String check(String pattern, int position) {
        List<Part> parts = parts(pattern, position);
        boolean named = false;
        for (int i = 0; i < parts.size(); i++) {
            if (parts.get(i).capture() != null) {
                if (i > 0 && parts.get(i - 1).capture() != null) {
                    throw new InvalidLogQl("a pattern cannot have two captures side by side", position);
                }
                named |= !parts.get(i).capture().equals("_");
            }
        }
        if (!named) {
            throw new InvalidLogQl("a pattern needs at least one named capture such as <name>", position);
        }
        return pattern;
    }

    static List<Part> parts(String pattern, int position) {
        List<Part> out = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < pattern.length()) {
            char c = pattern.charAt(i);
            int close = c == '<' ? pattern.indexOf('>', i) : -1;
            if (close > i + 1 && pattern.substring(i + 1, close).matches("[A-Za-z_][A-Za-z0-9_]*")) {
                if (literal.length() > 0) {
                    out.add(new Part(literal.toString(), null));
                    literal.setLength(0);
                }
                out.add(new Part(null, pattern.substring(i + 1, close)));
                i = close + 1;
            } else {
                literal.append(c);
                i++;
            }
        }
        if (literal.length() > 0) {
            out.add(new Part(literal.toString(), null));
        }
        return out;
    }

    /** The captures of {@code line}, or null when the line does not fit the pattern's literals. */
    static List<String[]> match(List<Part> parts, String line) {
        List<String[]> out = new ArrayList<>();
        int at = 0;
        for (int i = 0; i < parts.size(); i++) {
            Part p = parts.get(i);
            if (p.literal() != null) {
                if (!line.startsWith(p.literal(), at)) {
                    return null;
                }
                at += p.literal().length();
                continue;
            }
            int end;
            if (i + 1 < parts.size()) {
                end = line.indexOf(parts.get(i + 1).literal(), at);
                if (end < 0) {
                    return null;
                }
            } else {
                end = line.length();
            }
            if (!p.capture().equals("_")) {
                out.add(new String[] {p.capture(), line.substring(at, end)});
            }
            at = end;
        }
        return out;
    }
}
