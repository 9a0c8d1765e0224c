package dev.logpipe.query.internal.loki;

import dev.logpipe.query.internal.loki.LogQl.Binary;
import dev.logpipe.query.internal.loki.LogQl.BinaryOp;
import dev.logpipe.query.internal.loki.LogQl.Expr;
import dev.logpipe.query.internal.loki.LogQl.Grouping;
import dev.logpipe.query.internal.loki.LogQl.LogQuery;
import dev.logpipe.query.internal.loki.LogQl.Matcher;
import dev.logpipe.query.internal.loki.LogQl.RangeFn;
import dev.logpipe.query.internal.loki.LogQl.Stage;
import dev.logpipe.query.internal.loki.LogQl.Unwrap;
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
 * <p>One method per rule, read top to bottom as the grammar is: here the metric expressions and the log query's
 * place in them; the selector and the pipeline are {@link StageParser}'s rules, the place in the tokens and the
 * nesting depth {@link TokenCursor}'s.
 */
public final class LogQlParser {
    public static final int MAX_QUERY_CHARS = 8192;
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

    private final TokenCursor in;
    private final StageParser stages;

    private LogQlParser(List<Token> tokens) {
        this.in = new TokenCursor(tokens);
        this.stages = new StageParser(in);
    }

    /** @throws InvalidLogQl the text does not parse or uses an unsupported construct */
    public static LogQl.Query parse(String text) {
        if (text.length() > MAX_QUERY_CHARS) {
            throw new InvalidLogQl("the query is longer than " + MAX_QUERY_CHARS + " characters", 0);
        }
        LogQlParser p = new LogQlParser(LogQlLexer.tokens(text));
        LogQl.Query q;
        if (p.in.peek().is("{")) {
            q = p.logQuery(false);
            if (precedence(p.in.peek()) > 0) {
                throw new InvalidLogQl(
                        "a log query cannot be combined with operators; use a range function such as count_over_time",
                        p.in.peek().position());
            }
        } else {
            q = p.expr(0);
        }
        if (p.in.peek().kind() != Kind.END) {
            throw p.in.unexpected("an operator or the end of the query");
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
        in.enter();
        Expr left = unary();
        while (true) {
            Token op = in.peek();
            int prec = precedence(op);
            if (prec < 0 || prec < minPrecedence) {
                break;
            }
            if (prec == 1) {
                throw InvalidLogQl.unsupported("the set operator \"" + op.text() + "\"", op.position());
            }
            in.next();
            boolean bool = false;
            if (in.peek().is("bool")) {
                if (prec != 2) {
                    throw new InvalidLogQl(
                            "bool is only allowed after a comparison", in.peek().position());
                }
                in.next();
                bool = true;
            }
            if (in.peek().is("on")
                    || in.peek().is("ignoring")
                    || in.peek().is("group_left")
                    || in.peek().is("group_right")) {
                throw InvalidLogQl.unsupported(
                        "vector matching (" + in.peek().text() + ")", in.peek().position());
            }
            Expr right = expr(op.text().equals("^") ? prec : prec + 1);
            left = new Binary(binaryOp(op.text()), left, right, bool);
        }
        in.leave();
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
        Token t = in.peek();
        if (t.is("-") || t.is("+")) {
            in.next();
            in.enter();
            Expr inner = unary();
            in.leave();
            return t.is("-") ? new LogQl.Negate(inner) : inner;
        }
        if (t.kind() == Kind.NUMBER) {
            in.next();
            return new LogQl.Scalar(t.number());
        }
        if (t.is("(")) {
            in.next();
            if (in.peek().is("{")) {
                throw new InvalidLogQl(
                        "a log query in parentheses must be inside a range function such as count_over_time",
                        in.peek().position());
            }
            Expr e = expr(0);
            in.expect(")");
            return e;
        }
        if (t.is("{")) {
            throw new InvalidLogQl(
                    "a log query cannot be combined with operators; use a range function such as count_over_time",
                    t.position());
        }
        if (t.kind() != Kind.IDENT) {
            throw in.unexpected("a number, a function or an aggregation");
        }
        String name = t.text().toLowerCase(Locale.ROOT);
        if (name.equals("vector")) {
            in.next();
            in.expect("(");
            double v = signedNumber();
            in.expect(")");
            return new LogQl.VectorLiteral(v);
        }
        for (VectorOp op : VectorOp.values()) {
            if (op.name().toLowerCase(Locale.ROOT).equals(name)) {
                in.next();
                return vectorAgg(op);
            }
        }
        for (RangeFn fn : RangeFn.values()) {
            if (fn.name().toLowerCase(Locale.ROOT).equals(name)) {
                in.next();
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
        if (in.peek().is("-")) {
            in.next();
            negative = true;
        }
        Token n = in.next();
        if (n.kind() != Kind.NUMBER) {
            throw new InvalidLogQl("expected a number, found " + n.describe(), n.position());
        }
        return negative ? -n.number() : n.number();
    }

    private Expr vectorAgg(VectorOp op) {
        Grouping g = grouping();
        in.expect("(");
        Integer param = null;
        if (op == VectorOp.TOPK || op == VectorOp.BOTTOMK) {
            Token k = in.next();
            if (k.kind() != Kind.NUMBER
                    || k.number() < 1
                    || k.number() != Math.floor(k.number())
                    || k.number() > 10_000) {
                throw new InvalidLogQl(
                        op.name().toLowerCase(Locale.ROOT) + " needs a whole number from 1 to 10000 first",
                        k.position());
            }
            param = (int) k.number();
            in.expect(",");
        }
        Expr inner = expr(0);
        in.expect(")");
        Grouping after = grouping();
        if (g != null && after != null) {
            throw new InvalidLogQl("by/without given twice", in.peek().position());
        }
        return new LogQl.VectorAgg(op, g != null ? g : after, param, inner);
    }

    private Grouping grouping() {
        Token t = in.peek();
        if (!(t.is("by") || t.is("without"))) {
            return null;
        }
        in.next();
        in.expect("(");
        List<String> labels = new ArrayList<>();
        if (!in.peek().is(")")) {
            do {
                labels.add(in.ident("a label name"));
            } while (in.accept(","));
        }
        in.expect(")");
        return new Grouping(t.is("without"), labels);
    }

    private Expr rangeAgg(RangeFn fn, int position) {
        in.expect("(");
        Double param = null;
        if (fn == RangeFn.QUANTILE_OVER_TIME) {
            param = signedNumber();
            in.expect(",");
        }
        if (!in.peek().is("{")) {
            throw in.unexpected("a stream selector {...}");
        }
        List<Matcher> selector = stages.selector();
        List<Stage> out = new ArrayList<>();
        Unwrap unwrap = stages.pipeline(out, true);
        Token open = in.expect("[");
        Token range = in.next();
        if (range.kind() != Kind.DURATION || range.number() < 1) {
            throw new InvalidLogQl("a range must be a positive duration such as [5m]", range.position());
        }
        in.expect("]");
        if (in.peek().is("offset")) {
            throw InvalidLogQl.unsupported("offset", in.peek().position());
        }
        if (in.peek().is("|")) {
            throw new InvalidLogQl("put the pipeline before the range: {...} | json [5m]", open.position());
        }
        in.expect(")");
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
        return new LogQl.RangeAgg(fn, new LogQuery(selector, out), (long) range.number(), param, unwrap, g);
    }

    // ---- log queries

    private LogQuery logQuery(boolean allowUnwrap) {
        List<Matcher> selector = stages.selector();
        List<Stage> out = new ArrayList<>();
        stages.pipeline(out, allowUnwrap);
        return new LogQuery(selector, out);
    }
}
