package dev.logpipe.query.internal.loki;

import dev.logpipe.query.internal.loki.LogQl.And;
import dev.logpipe.query.internal.loki.LogQl.Binary;
import dev.logpipe.query.internal.loki.LogQl.BinaryOp;
import dev.logpipe.query.internal.loki.LogQl.Compare;
import dev.logpipe.query.internal.loki.LogQl.CompareOp;
import dev.logpipe.query.internal.loki.LogQl.Expr;
import dev.logpipe.query.internal.loki.LogQl.Extraction;
import dev.logpipe.query.internal.loki.LogQl.Grouping;
import dev.logpipe.query.internal.loki.LogQl.LabelAssignment;
import dev.logpipe.query.internal.loki.LogQl.LineOp;
import dev.logpipe.query.internal.loki.LogQl.LogQuery;
import dev.logpipe.query.internal.loki.LogQl.MatchOp;
import dev.logpipe.query.internal.loki.LogQl.Matcher;
import dev.logpipe.query.internal.loki.LogQl.Or;
import dev.logpipe.query.internal.loki.LogQl.Predicate;
import dev.logpipe.query.internal.loki.LogQl.RangeFn;
import dev.logpipe.query.internal.loki.LogQl.Stage;
import dev.logpipe.query.internal.loki.LogQl.Unwrap;
import dev.logpipe.query.internal.loki.LogQl.ValueKind;
import dev.logpipe.query.internal.loki.LogQl.VectorOp;
import dev.logpipe.query.internal.loki.LogQlLexer.Kind;
import dev.logpipe.query.internal.loki.LogQlLexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A recursive-descent parser of the LogQL subset (docs/loki.md#logql). Anything outside it is an {@link InvalidLogQl}
 * that names the construct and its position; nesting is limited so no text can exhaust the stack. Regular expressions
 * are compiled here (RE2 syntax, {@code com.google.re2j}), so a bad one is a parse error too.
 *
 * <p>Longer than 500 lines on purpose: one method per rule of one grammar, read top to bottom as the grammar is;
 * split across files, a rule and the rules it calls would no longer sit together.
 */
public final class LogQlParser {
    public static final int MAX_QUERY_CHARS = 8192;
    private static final int MAX_DEPTH = 64;
    private static final Set<String> UNSUPPORTED_FUNCTIONS = Set.of(
            "stddev_over_time",
            "stdvar_over_time",
            "absent_over_time",
            "rate_counter",
            "stddev",
            "stdvar",
            "sort",
            "sort_desc",
            "label_replace",
            "count_values",
            "approx_topk");
    private static final Set<String> UNSUPPORTED_STAGES = Set.of("unpack", "decolorize", "distinct");

    private final List<Token> tokens;
    private int at;
    private int depth;

    private LogQlParser(List<Token> tokens) {
        this.tokens = tokens;
    }

    /** @throws InvalidLogQl the text does not parse or uses an unsupported construct */
    public static LogQl.Query parse(String text) {
        if (text.length() > MAX_QUERY_CHARS) {
            throw new InvalidLogQl("the query is longer than " + MAX_QUERY_CHARS + " characters", 0);
        }
        LogQlParser p = new LogQlParser(LogQlLexer.tokens(text));
        LogQl.Query q;
        if (p.peek().is("{")) {
            q = p.logQuery(false);
            if (precedence(p.peek()) > 0) {
                throw new InvalidLogQl(
                        "a log query cannot be combined with operators; use a range function such as count_over_time",
                        p.peek().position());
            }
        } else {
            q = p.expr(0);
        }
        if (p.peek().kind() != Kind.END) {
            throw p.unexpected("an operator or the end of the query");
        }
        return q;
    }

    // ---- metric expressions: precedence climbing over Prometheus' levels

    private static int precedence(Token t) {
        if (t.kind() != Kind.SYMBOL) {
            return t.kind() == Kind.IDENT && Set.of("or", "and", "unless").contains(t.text()) ? 1 : -1;
        }
        return switch (t.text()) {
            case "==", "!=", ">", ">=", "<", "<=" -> 2;
            case "+", "-" -> 3;
            case "*", "/", "%" -> 4;
            case "^" -> 5;
            default -> -1;
        };
    }

    private Expr expr(int minPrecedence) {
        enter();
        Expr left = unary();
        while (true) {
            Token op = peek();
            int prec = precedence(op);
            if (prec < 0 || prec < minPrecedence) {
                break;
            }
            if (prec == 1) {
                throw InvalidLogQl.unsupported("the set operator \"" + op.text() + "\"", op.position());
            }
            next();
            boolean bool = false;
            if (peek().is("bool")) {
                if (prec != 2) {
                    throw new InvalidLogQl("bool is only allowed after a comparison", peek().position());
                }
                next();
                bool = true;
            }
            if (peek().is("on") || peek().is("ignoring") || peek().is("group_left") || peek().is("group_right")) {
                throw InvalidLogQl.unsupported("vector matching (" + peek().text() + ")", peek().position());
            }
            Expr right = expr(op.text().equals("^") ? prec : prec + 1);
            left = new Binary(binaryOp(op.text()), left, right, bool);
        }
        depth--;
        return left;
    }

    private static BinaryOp binaryOp(String s) {
        return switch (s) {
            case "+" -> BinaryOp.ADD;
            case "-" -> BinaryOp.SUB;
            case "*" -> BinaryOp.MUL;
            case "/" -> BinaryOp.DIV;
            case "%" -> BinaryOp.MOD;
            case "^" -> BinaryOp.POW;
            case "==" -> BinaryOp.EQ;
            case "!=" -> BinaryOp.NE;
            case ">" -> BinaryOp.GT;
            case ">=" -> BinaryOp.GE;
            case "<" -> BinaryOp.LT;
            default -> BinaryOp.LE;
        };
    }

    private Expr unary() {
        Token t = peek();
        if (t.is("-") || t.is("+")) {
            next();
            enter();
            Expr inner = unary();
            depth--;
            return t.is("-") ? new LogQl.Negate(inner) : inner;
        }
        if (t.kind() == Kind.NUMBER) {
            next();
            return new LogQl.Scalar(t.number());
        }
        if (t.is("(")) {
            next();
            if (peek().is("{")) {
                throw new InvalidLogQl(
                        "a log query in parentheses must be inside a range function such as count_over_time",
                        peek().position());
            }
            Expr e = expr(0);
            expect(")");
            return e;
        }
        if (t.is("{")) {
            throw new InvalidLogQl(
                    "a log query cannot be combined with operators; use a range function such as count_over_time",
                    t.position());
        }
        if (t.kind() != Kind.IDENT) {
            throw unexpected("a number, a function or an aggregation");
        }
        String name = t.text().toLowerCase(Locale.ROOT);
        if (name.equals("vector")) {
            next();
            expect("(");
            double v = signedNumber();
            expect(")");
            return new LogQl.VectorLiteral(v);
        }
        for (VectorOp op : VectorOp.values()) {
            if (op.name().toLowerCase(Locale.ROOT).equals(name)) {
                next();
                return vectorAgg(op);
            }
        }
        for (RangeFn fn : RangeFn.values()) {
            if (fn.name().toLowerCase(Locale.ROOT).equals(name)) {
                next();
                return rangeAgg(fn, t.position());
            }
        }
        if (UNSUPPORTED_FUNCTIONS.contains(name)) {
            throw InvalidLogQl.unsupported("the function " + name, t.position());
        }
        throw new InvalidLogQl("unknown function or aggregation \"" + t.text() + "\"", t.position());
    }

    private double signedNumber() {
        boolean negative = false;
        if (peek().is("-")) {
            next();
            negative = true;
        }
        Token n = next();
        if (n.kind() != Kind.NUMBER) {
            throw new InvalidLogQl("expected a number, found " + n.describe(), n.position());
        }
        return negative ? -n.number() : n.number();
    }

    private Expr vectorAgg(VectorOp op) {
        Grouping g = grouping();
        expect("(");
        Integer param = null;
        if (op == VectorOp.TOPK || op == VectorOp.BOTTOMK) {
            Token k = next();
            if (k.kind() != Kind.NUMBER
                    || k.number() < 1
                    || k.number() != Math.floor(k.number())
                    || k.number() > 10_000) {
                throw new InvalidLogQl(
                        op.name().toLowerCase(Locale.ROOT) + " needs a whole number from 1 to 10000 first",
                        k.position());
            }
            param = (int) k.number();
            expect(",");
        }
        Expr inner = expr(0);
        expect(")");
        Grouping after = grouping();
        if (g != null && after != null) {
            throw new InvalidLogQl("by/without given twice", peek().position());
        }
        return new LogQl.VectorAgg(op, g != null ? g : after, param, inner);
    }

    private Grouping grouping() {
        Token t = peek();
        if (!(t.is("by") || t.is("without"))) {
            return null;
        }
        next();
        expect("(");
        List<String> labels = new ArrayList<>();
        if (!peek().is(")")) {
            do {
                labels.add(ident("a label name"));
            } while (accept(","));
        }
        expect(")");
        return new Grouping(t.is("without"), labels);
    }

    private Expr rangeAgg(RangeFn fn, int position) {
        expect("(");
        Double param = null;
        if (fn == RangeFn.QUANTILE_OVER_TIME) {
            param = signedNumber();
            expect(",");
        }
        if (!peek().is("{")) {
            throw unexpected("a stream selector {...}");
        }
        List<Matcher> selector = selector();
        List<Stage> stages = new ArrayList<>();
        Unwrap unwrap = pipeline(stages, true);
        Token open = expect("[");
        Token range = next();
        if (range.kind() != Kind.DURATION || range.number() < 1) {
            throw new InvalidLogQl("a range must be a positive duration such as [5m]", range.position());
        }
        expect("]");
        if (peek().is("offset")) {
            throw InvalidLogQl.unsupported("offset", peek().position());
        }
        if (peek().is("|")) {
            throw new InvalidLogQl("put the pipeline before the range: {...} | json [5m]", open.position());
        }
        expect(")");
        if (fn.needsUnwrap() && unwrap == null) {
            throw new InvalidLogQl(fn.name().toLowerCase(Locale.ROOT) + " needs | unwrap <label>", position);
        }
        if (!fn.needsUnwrap() && unwrap != null && fn != RangeFn.RATE) {
            throw new InvalidLogQl(fn.name().toLowerCase(Locale.ROOT) + " does not take | unwrap", position);
        }
        Grouping g = grouping();
        if (g != null && unwrap == null) {
            throw new InvalidLogQl("by/without on a range function needs | unwrap", position);
        }
        return new LogQl.RangeAgg(fn, new LogQuery(selector, stages), (long) range.number(), param, unwrap, g);
    }

    // ---- log queries

    private LogQuery logQuery(boolean allowUnwrap) {
        List<Matcher> selector = selector();
        List<Stage> stages = new ArrayList<>();
        pipeline(stages, allowUnwrap);
        return new LogQuery(selector, stages);
    }

    private List<Matcher> selector() {
        expect("{");
        List<Matcher> out = new ArrayList<>();
        if (!peek().is("}")) {
            do {
                String name = ident("a label name");
                Token op = next();
                MatchOp m = matchOp(op);
                if (m == null) {
                    throw new InvalidLogQl("expected = != =~ or !~, found " + op.describe(), op.position());
                }
                out.add(matcher(name, m, string("a quoted label value")));
            } while (accept(","));
        }
        expect("}");
        return out;
    }

    private Matcher matcher(String name, MatchOp op, Token value) {
        if (op == MatchOp.RE || op == MatchOp.NRE) {
            Regexes.compile(value.text(), value.position());
        }
        return new Matcher(name, op, value.text());
    }

    private static MatchOp matchOp(Token t) {
        if (t.kind() != Kind.SYMBOL) {
            return null;
        }
        return switch (t.text()) {
            case "=" -> MatchOp.EQ;
            case "!=" -> MatchOp.NE;
            case "=~" -> MatchOp.RE;
            case "!~" -> MatchOp.NRE;
            default -> null;
        };
    }

    /** Reads stages into {@code stages}; returns the unwrap when one was read (only where allowed). */
    private Unwrap pipeline(List<Stage> stages, boolean allowUnwrap) {
        Unwrap unwrap = null;
        while (true) {
            Token t = peek();
            if (t.is("|=") || t.is("!=") || t.is("|~") || t.is("!~")) {
                next();
                stages.add(lineFilter(t));
                continue;
            }
            if (!t.is("|")) {
                return unwrap;
            }
            next();
            Token s = peek();
            if (s.is("(")) {
                stages.add(new LogQl.LabelFilter(predicate()));
                continue;
            }
            if (s.kind() != Kind.IDENT) {
                throw unexpected("a parser, a label filter or a formatting stage after |");
            }
            Token after = tokens.get(Math.min(at + 1, tokens.size() - 1));
            boolean isFilter = matchOp(after) != null
                    || Set.of(">", ">=", "<", "<=", "==").contains(after.text()) && after.kind() == Kind.SYMBOL;
            if (isFilter) {
                stages.add(new LogQl.LabelFilter(predicate()));
                continue;
            }
            next();
            String word = s.text();
            switch (word) {
                case "json" -> stages.add(new LogQl.JsonParser(extractions()));
                case "logfmt" -> {
                    if (peek().is("-")) {
                        throw InvalidLogQl.unsupported("logfmt flags (--strict, --keep-empty)", peek().position());
                    }
                    stages.add(new LogQl.LogfmtParser(extractions()));
                }
                case "pattern" -> {
                    Token p = string("a quoted pattern");
                    stages.add(new LogQl.PatternParser(Patterns.check(p.text(), p.position())));
                }
                case "regexp" -> {
                    Token p = string("a quoted regular expression");
                    if (Regexes.compile(p.text(), p.position()).namedGroups().isEmpty()) {
                        throw new InvalidLogQl("| regexp needs at least one named group (?P<name>...)", p.position());
                    }
                    stages.add(new LogQl.RegexpParser(p.text()));
                }
                case "line_format" -> {
                    Token p = string("a quoted template");
                    Templates.check(p.text(), p.position());
                    stages.add(new LogQl.LineFormat(p.text()));
                }
                case "label_format" -> stages.add(labelFormat());
                case "drop" -> stages.add(new LogQl.Drop(labelList()));
                case "keep" -> stages.add(new LogQl.Keep(labelList()));
                case "unwrap" -> {
                    if (!allowUnwrap) {
                        throw new InvalidLogQl("| unwrap is only allowed inside a range function", s.position());
                    }
                    if (unwrap != null) {
                        throw new InvalidLogQl("| unwrap given twice", s.position());
                    }
                    unwrap = unwrap();
                }
                default -> {
                    if (UNSUPPORTED_STAGES.contains(word)) {
                        throw InvalidLogQl.unsupported("| " + word, s.position());
                    }
                    if (after.is("(")) {
                        throw InvalidLogQl.unsupported("the filter function " + word + "()", s.position());
                    }
                    throw new InvalidLogQl(
                            "unknown stage \"" + word + "\" (expected json, logfmt, pattern, regexp, line_format, "
                                    + "label_format, drop, keep, unwrap or a label filter)",
                            s.position());
                }
            }
        }
    }

    private LogQl.LineFilter lineFilter(Token op) {
        LineOp lineOp = switch (op.text()) {
            case "|=" -> LineOp.CONTAINS;
            case "!=" -> LineOp.NOT_CONTAINS;
            case "|~" -> LineOp.MATCHES;
            default -> LineOp.NOT_MATCHES;
        };
        if (peek().kind() == Kind.IDENT && tokens.get(at + 1).is("(")) {
            throw InvalidLogQl.unsupported("the line filter function " + peek().text() + "()", peek().position());
        }
        List<String> values = new ArrayList<>();
        do {
            Token v = string("a quoted string after " + op.text());
            if (lineOp == LineOp.MATCHES || lineOp == LineOp.NOT_MATCHES) {
                Regexes.compile(v.text(), v.position());
            }
            values.add(v.text());
        } while (accept("or"));
        return new LogQl.LineFilter(lineOp, values);
    }

    private List<Extraction> extractions() {
        List<Extraction> out = new ArrayList<>();
        if (peek().kind() != Kind.IDENT || peek().is("or") || peek().is("and")) {
            return out;
        }
        do {
            String label = ident("a label name");
            String expression = label;
            if (accept("=")) {
                expression = string("a quoted expression").text();
            }
            out.add(new Extraction(label, expression));
        } while (accept(","));
        return out;
    }

    private LogQl.LabelFormat labelFormat() {
        List<LabelAssignment> out = new ArrayList<>();
        do {
            String label = ident("a label name");
            expect("=");
            Token v = next();
            if (v.kind() == Kind.STRING) {
                Templates.check(v.text(), v.position());
                out.add(new LabelAssignment(label, v.text(), true));
            } else if (v.kind() == Kind.IDENT) {
                out.add(new LabelAssignment(label, v.text(), false));
            } else {
                throw new InvalidLogQl("expected a label or a quoted template, found " + v.describe(), v.position());
            }
        } while (accept(","));
        return new LogQl.LabelFormat(out);
    }

    private List<Matcher> labelList() {
        List<Matcher> out = new ArrayList<>();
        do {
            String label = ident("a label name");
            MatchOp op = matchOp(peek());
            if (op != null) {
                next();
                out.add(matcher(label, op, string("a quoted value")));
            } else {
                out.add(new Matcher(label, MatchOp.RE, ".*"));
            }
        } while (accept(","));
        return out;
    }

    private Unwrap unwrap() {
        Token t = peek();
        ValueKind kind = ValueKind.NUMBER;
        boolean call = false;
        if (t.kind() == Kind.IDENT && tokens.get(at + 1).is("(")) {
            kind = switch (t.text()) {
                case "duration", "duration_seconds" -> ValueKind.DURATION;
                case "bytes" -> ValueKind.BYTES;
                default -> throw InvalidLogQl.unsupported("unwrap " + t.text() + "()", t.position());
            };
            next();
            next();
            call = true;
        }
        String label = ident("a label name");
        if (call) {
            expect(")");
        }
        return new Unwrap(label, kind);
    }

    private Predicate predicate() {
        enter();
        Predicate left = conjunction();
        while (accept("or")) {
            left = new Or(left, conjunction());
        }
        depth--;
        return left;
    }

    private Predicate conjunction() {
        Predicate left = comparison();
        while (true) {
            if (accept("and") || accept(",")) {
                left = new And(left, comparison());
            } else if (peek().kind() == Kind.IDENT
                    && !peek().is("or")
                    && !peek().is("by")
                    && !peek().is("without")
                    && matchOrCompare(tokens.get(Math.min(at + 1, tokens.size() - 1)))) {
                left = new And(left, comparison()); // | a="x" b="y": a space joins like and
            } else {
                return left;
            }
        }
    }

    private static boolean matchOrCompare(Token t) {
        return t.kind() == Kind.SYMBOL
                && Set.of("=", "!=", "=~", "!~", ">", ">=", "<", "<=", "==").contains(t.text());
    }

    private Predicate comparison() {
        if (accept("(")) {
            Predicate p = predicate();
            expect(")");
            return p;
        }
        Token name = peek();
        String label = ident("a label name");
        if (peek().is("(")) {
            throw InvalidLogQl.unsupported("the label filter function " + label + "()", name.position());
        }
        Token op = next();
        Token value = peek();
        MatchOp m = matchOp(op);
        if (m != null && value.kind() == Kind.STRING) {
            next();
            return new LogQl.StringMatch(matcher(label, m, value));
        }
        if (m == MatchOp.RE || m == MatchOp.NRE) {
            throw new InvalidLogQl("=~ and !~ need a quoted regular expression", value.position());
        }
        CompareOp c = switch (op.text()) {
            case "=", "==" -> CompareOp.EQ;
            case "!=" -> CompareOp.NE;
            case ">" -> CompareOp.GT;
            case ">=" -> CompareOp.GE;
            case "<" -> CompareOp.LT;
            case "<=" -> CompareOp.LE;
            default ->
                throw new InvalidLogQl(
                        "expected a comparison after " + label + ", found " + op.describe(), op.position());
        };
        if (op.kind() != Kind.SYMBOL) {
            throw new InvalidLogQl("expected a comparison after " + label + ", found " + op.describe(), op.position());
        }
        boolean negative = accept("-");
        Token v = next();
        ValueKind kind = switch (v.kind()) {
            case NUMBER -> ValueKind.NUMBER;
            case DURATION -> ValueKind.DURATION;
            case BYTES -> ValueKind.BYTES;
            default ->
                throw new InvalidLogQl(
                        "expected a quoted string, a number, a duration or a size, found " + v.describe(),
                        v.position());
        };
        double number = kind == ValueKind.DURATION ? Durations.nanos(v.text()) / 1e9 : v.number();
        return new Compare(label, c, negative ? -number : number, kind);
    }

    // ---- tokens

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw new InvalidLogQl("the query is nested more than " + MAX_DEPTH + " levels deep", peek().position());
        }
    }

    private Token peek() {
        return tokens.get(at);
    }

    private Token next() {
        Token t = tokens.get(at);
        if (t.kind() != Kind.END) {
            at++;
        }
        return t;
    }

    private boolean accept(String symbolOrWord) {
        if (peek().is(symbolOrWord)) {
            next();
            return true;
        }
        return false;
    }

    private Token expect(String symbol) {
        if (!peek().is(symbol)) {
            throw unexpected("\"" + symbol + "\"");
        }
        return next();
    }

    private String ident(String what) {
        Token t = next();
        if (t.kind() != Kind.IDENT) {
            throw new InvalidLogQl("expected " + what + ", found " + t.describe(), t.position());
        }
        return t.text();
    }

    private Token string(String what) {
        Token t = next();
        if (t.kind() != Kind.STRING) {
            throw new InvalidLogQl("expected " + what + ", found " + t.describe(), t.position());
        }
        return t;
    }

    private InvalidLogQl unexpected(String expected) {
        Token t = peek();
        return new InvalidLogQl("expected " + expected + ", found " + t.describe(), t.position());
    }
}
