package dev.logpipe.query.internal.loki;

import dev.logpipe.query.internal.loki.LogQlLexer.Kind;
import dev.logpipe.query.internal.loki.LogQlLexer.Token;
import java.util.List;

/**
 * The parsers' place in a LogQL text's tokens ({@link LogQlLexer}) and their nesting depth, limited to
 * {@value #MAX_DEPTH} so no text can exhaust the stack. A mistake is an {@link InvalidLogQl} naming what was expected
 * and the position. One per parse; not thread-safe.
 */
final class TokenCursor {
    private static final int MAX_DEPTH = 64;

    private final List<Token> tokens;
    private int at;
    private int depth;

    TokenCursor(List<Token> tokens) {
        this.tokens = tokens;
    }

    /** One level deeper; every {@code enter} is paired with a {@link #leave}. */
    void enter() {
        if (++depth > MAX_DEPTH) {
            throw new InvalidLogQl("the query is nested more than " + MAX_DEPTH + " levels deep", peek().position());
        }
    }

    void leave() {
        depth--;
    }

    Token peek() {
        return tokens.get(at);
    }

    /** The token after the next one (the end when there is none). */
    Token second() {
        return tokens.get(Math.min(at + 1, tokens.size() - 1));
    }

    Token next() {
        Token t = tokens.get(at);
        if (t.kind() != Kind.END) {
            at++;
        }
        return t;
    }

    boolean accept(String symbolOrWord) {
        if (peek().is(symbolOrWord)) {
            next();
            return true;
        }
        return false;
    }

    Token expect(String symbol) {
        if (!peek().is(symbol)) {
            throw unexpected("\"" + symbol + "\"");
        }
        return next();
    }

    String ident(String what) {
        Token t = next();
        if (t.kind() != Kind.IDENT) {
            throw new InvalidLogQl("expected " + what + ", found " + t.describe(), t.position());
        }
        return t.text();
    }

    Token string(String what) {
        Token t = next();
        if (t.kind() != Kind.STRING) {
            throw new InvalidLogQl("expected " + what + ", found " + t.describe(), t.position());
        }
        return t;
    }

    InvalidLogQl unexpected(String expected) {
        Token t = peek();
        return new InvalidLogQl("expected " + expected + ", found " + t.describe(), t.position());
    }
}
