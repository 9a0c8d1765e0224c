package dev.logpipe.query.internal.loki;

import java.util.ArrayList;
import java.util.List;

/** Splits LogQL text into tokens; a character it cannot read is an {@link InvalidLogQl} naming its position. */
final class LogQlLexer {
    enum Kind {
        IDENT,
        STRING,
        NUMBER,
        DURATION,
        BYTES,
        SYMBOL,
        END
    }

    /** A token: its kind, its text (a string's value unquoted), its number (durations in ms) and where it starts. */
    record Token(Kind kind, String text, double number, int position) {
        boolean is(String symbolOrWord) {
            return (kind == Kind.SYMBOL || kind == Kind.IDENT) && text.equals(symbolOrWord);
        }

        String describe() {
            return switch (kind) {
                case END -> "the end of the query";
                case STRING -> "a string";
                default -> "\"" + text + "\"";
            };
        }
    }

    private static final String[] SYMBOLS = {
        "|=", "|~", "!=", "!~", "=~", "==", ">=", "<=", "=", ">", "<", "|", "{", "}", "(", ")", "[", "]", ",", "+", "-",
        "*", "/", "%", "^"
    };

    private LogQlLexer() {}

    static List<Token> tokens(String text) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (true) {
            while (i < n && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i >= n) {
                out.add(new Token(Kind.END, "", 0, n));
                return out;
            }
            char c = text.charAt(i);
            int start = i;
            if (c == '#') { // a comment runs to the end of the line
                while (i < n && text.charAt(i) != '\n') {
                    i++;
                }
                continue;
            }
            if (Character.isLetter(c) || c == '_') {
                while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
                    i++;
                }
                out.add(new Token(Kind.IDENT, text.substring(start, i), 0, start));
                continue;
            }
            if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(text.charAt(i + 1)))) {
                while (i < n && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
                    i++;
                }
                if (i < n
                        && (text.charAt(i) == 'e' || text.charAt(i) == 'E')
                        && i + 1 < n
                        && (Character.isDigit(text.charAt(i + 1))
                                || ((text.charAt(i + 1) == '-' || text.charAt(i + 1) == '+')
                                        && i + 2 < n
                                        && Character.isDigit(text.charAt(i + 2))))) {
                    i += 2;
                    while (i < n && Character.isDigit(text.charAt(i))) {
                        i++;
                    }
                }
                if (i < n && Character.isLetter(text.charAt(i))) {
                    while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '.')) {
                        i++;
                    }
                    out.add(unit(text.substring(start, i), start));
                } else {
                    out.add(new Token(
                            Kind.NUMBER, text.substring(start, i), number(text.substring(start, i), start), start));
                }
                continue;
            }
            if (c == '"' || c == '`') {
                StringBuilder b = new StringBuilder();
                i = string(text, i, b);
                out.add(new Token(Kind.STRING, b.toString(), 0, start));
                continue;
            }
            String symbol = null;
            for (String s : SYMBOLS) {
                if (text.startsWith(s, i)) {
                    symbol = s;
                    break;
                }
            }
            if (symbol == null) {
                throw new InvalidLogQl("unexpected character '" + c + "'", start);
            }
            out.add(new Token(Kind.SYMBOL, symbol, 0, start));
            i += symbol.length();
        }
    }

    private static double number(String s, int position) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new InvalidLogQl("\"" + s + "\" is not a number", position);
        }
    }

    private static Token unit(String s, int position) {
        Long ms = Durations.millis(s);
        if (ms != null) {
            return new Token(Kind.DURATION, s, ms, position);
        }
        Double bytes = Durations.bytes(s);
        if (bytes != null) {
            return new Token(Kind.BYTES, s, bytes, position);
        }
        throw new InvalidLogQl("\"" + s + "\" is neither a number, a duration (5m, 1h30m) nor a size (10KB)", position);
    }

    /** Reads a quoted string at {@code i} into {@code b}; returns the index after its closing quote. */
    private static int string(String text, int i, StringBuilder b) {
        char quote = text.charAt(i);
        int start = i;
        i++;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == quote) {
                return i + 1;
            }
            if (c == '\\' && quote == '"') {
                if (i + 1 >= n) {
                    break;
                }
                char e = text.charAt(i + 1);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'u' -> {
                        if (i + 6 > n) {
                            throw new InvalidLogQl("a \\u escape needs four hex digits", i);
                        }
                        try {
                            b.append((char) Integer.parseInt(text.substring(i + 2, i + 6), 16));
                        } catch (NumberFormatException x) {
                            throw new InvalidLogQl("a \\u escape needs four hex digits", i);
                        }
                        i += 4;
                    }
                    default -> throw new InvalidLogQl("unknown escape \\" + e + " in a string", i);
                }
                i += 2;
                continue;
            }
            b.append(c);
            i++;
        }
        throw new InvalidLogQl("a string is not closed", start);
    }
}
