package dev.logpipe.index.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Lowercase {@code and}, {@code or} and {@code not} between clauses are operators, as in Kibana's KQL: the text is
 * given to the classic grammar with those words upper-cased ({@code level:ERROR and service:auth} is
 * {@code level:ERROR AND service:auth}). A word is an operator only where an operator can stand: {@code and} and
 * {@code or} between two clauses, {@code not} before one. A quoted {@code "and"}, an escaped {@code \and}, the value of
 * a field ({@code message:and}), words inside a range or a regular expression, and a word at the start or end
 * ({@code and}, {@code error or}) stay words. The result has the same length, so a refusal's column is the user's.
 * One pass over the text, no allocation when nothing changes.
 */
final class OperatorWords {
    private OperatorWords() {}

    private enum Kind {
        /** A word, a quoted text, a range, a regular expression or a closing parenthesis: can end a clause. */
        CLAUSE,
        /** {@code name:}: the next token is its value. */
        FIELD,
        /** {@code (}: can start a clause, cannot end one. */
        OPEN,
        /** {@code AND}, {@code OR}, {@code NOT}, {@code &&}, {@code ||}, {@code !}: neither. */
        OPERATOR
    }

    private record Token(Kind kind, int start, int end) {}

    /** {@code text} with its operator words upper-cased; the same instance when it has none. */
    static String uppercase(String text) {
        if (!mayHold(text)) {
            return text;
        }
        List<Token> tokens = tokens(text);
        char[] out = null;
        Kind before = null; // the kind of the previous token, after any decision on it
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Kind kind = t.kind();
            String word = kind == Kind.CLAUSE ? operatorWord(text, t) : null;
            if (word != null && before != Kind.FIELD) {
                Kind after = i + 1 < tokens.size() ? tokens.get(i + 1).kind() : null;
                boolean startsNext = after == Kind.CLAUSE
                        || after == Kind.FIELD
                        || after == Kind.OPEN
                        || (after == Kind.OPERATOR && isNot(text, tokens.get(i + 1)));
                boolean endsPrevious = before == Kind.CLAUSE;
                boolean operator = "not".equals(word) ? startsNext : startsNext && endsPrevious;
                if (operator) {
                    if (out == null) {
                        out = text.toCharArray();
                    }
                    for (int k = t.start(); k < t.end(); k++) {
                        out[k] = Character.toUpperCase(out[k]);
                    }
                    kind = Kind.OPERATOR;
                }
            }
            before = kind;
        }
        return out == null ? text : new String(out);
    }

    /** False when the text cannot hold one of the words ("an", "or" or "no" in any case): most queries, one scan. */
    private static boolean mayHold(String text) {
        for (int i = 0; i + 1 < text.length(); i++) {
            char c = Character.toLowerCase(text.charAt(i));
            char d = Character.toLowerCase(text.charAt(i + 1));
            if ((c == 'a' && d == 'n') || (c == 'o' && d == 'r') || (c == 'n' && d == 'o')) {
                return true;
            }
        }
        return false;
    }

    /** "and", "or" or "not" for a word that is one of them in any case but upper (already an operator); else null. */
    private static String operatorWord(String text, Token t) {
        int n = t.end() - t.start();
        if (n < 2 || n > 3) {
            return null;
        }
        String w = text.substring(t.start(), t.end());
        String lower = w.toLowerCase(Locale.ROOT);
        if (!(lower.equals("and") || lower.equals("or") || lower.equals("not"))
                || w.equals(w.toUpperCase(Locale.ROOT))) {
            return null;
        }
        return lower;
    }

    private static boolean isNot(String text, Token t) {
        return text.startsWith("NOT", t.start()) || text.charAt(t.start()) == '!';
    }

    private static List<Token> tokens(String text) {
        List<Token> out = new ArrayList<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            if (c == '(') {
                out.add(new Token(Kind.OPEN, start, ++i));
            } else if (c == ')') {
                out.add(new Token(Kind.CLAUSE, start, ++i));
            } else if (c == '"') {
                i = skipTo(text, i + 1, '"', '"');
                out.add(new Token(Kind.CLAUSE, start, i));
            } else if (c == '[' || c == '{') {
                i = skipTo(text, i + 1, ']', '}');
                out.add(new Token(Kind.CLAUSE, start, i));
            } else if (c == '/') {
                i = skipTo(text, i + 1, '/', '/');
                out.add(new Token(Kind.CLAUSE, start, i));
            } else if (text.startsWith("&&", i) || text.startsWith("||", i)) {
                i += 2;
                out.add(new Token(Kind.OPERATOR, start, i));
            } else if (c == '!') {
                out.add(new Token(Kind.OPERATOR, start, ++i));
            } else {
                Kind kind = Kind.CLAUSE;
                while (i < n) {
                    char d = text.charAt(i);
                    if (d == '\\') {
                        i = Math.min(n, i + 2);
                        continue;
                    }
                    if (Character.isWhitespace(d) || d == '(' || d == ')' || d == '"') {
                        break;
                    }
                    i++;
                    if (d == ':') {
                        kind = Kind.FIELD;
                        break;
                    }
                }
                String w = text.substring(start, i);
                if (w.equals("AND") || w.equals("OR") || w.equals("NOT")) {
                    kind = Kind.OPERATOR;
                }
                out.add(new Token(kind, start, i));
            }
        }
        return out;
    }

    /** The index after the first unescaped {@code a} or {@code b} from {@code i}, or the end. */
    private static int skipTo(String text, int i, char a, char b) {
        int n = text.length();
        while (i < n) {
            char d = text.charAt(i);
            if (d == '\\') {
                i += 2;
                continue;
            }
            i++;
            if (d == a || d == b) {
                return i;
            }
        }
        return n;
    }
}
