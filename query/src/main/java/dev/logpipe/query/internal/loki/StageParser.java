package dev.logpipe.query.internal.loki;

import dev.logpipe.query.internal.loki.LogQl.And;
import dev.logpipe.query.internal.loki.LogQl.Compare;
import dev.logpipe.query.internal.loki.LogQl.CompareOp;
import dev.logpipe.query.internal.loki.LogQl.Extraction;
import dev.logpipe.query.internal.loki.LogQl.LabelAssignment;
import dev.logpipe.query.internal.loki.LogQl.LineOp;
import dev.logpipe.query.internal.loki.LogQl.MatchOp;
import dev.logpipe.query.internal.loki.LogQl.Matcher;
import dev.logpipe.query.internal.loki.LogQl.Or;
import dev.logpipe.query.internal.loki.LogQl.Predicate;
import dev.logpipe.query.internal.loki.LogQl.Stage;
import dev.logpipe.query.internal.loki.LogQl.Unwrap;
import dev.logpipe.query.internal.loki.LogQl.ValueKind;
import dev.logpipe.query.internal.loki.LogQlLexer.Kind;
import dev.logpipe.query.internal.loki.LogQlLexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The log-query half of {@link LogQlParser}: the stream selector and the pipeline (line filters, parsers, label
 * filters, formatting, {@code unwrap}), one method per rule, read from the parse's {@link TokenCursor}. One per parse;
 * not thread-safe.
 */
final class StageParser {
    private static final Set<String> UNSUPPORTED_STAGES = Set.of("unpack", "decolorize", "distinct");

    private final TokenCursor in;

    StageParser(TokenCursor in) {
        this.in = in;
    }

    List<Matcher> selector() {
        in.expect("{");
        List<Matcher> out = new ArrayList<>();
        if (!in.peek().is("}")) {
            do {
                String name = in.ident("a label name");
                Token op = in.next();
                MatchOp m = matchOp(op);
                if (m == null) {
                    throw new InvalidLogQl("expected = != =~ or !~, found " + op.describe(), op.position());
                }
                out.add(matcher(name, m, in.string("a quoted label value")));
            } while (in.accept(","));
        }
        in.expect("}");
        return out;
    }

    private static Matcher matcher(String name, MatchOp op, Token value) {
        if (op == MatchOp.RE || op == MatchOp.NRE) {
            Regexes.compile(value.text(), value.position());
        }
        return new Matcher(name, op, value.text());
    }

    static MatchOp matchOp(Token t) {
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
    Unwrap pipeline(List<Stage> stages, boolean allowUnwrap) {
        Unwrap unwrap = null;
        while (true) {
            Token t = in.peek();
            if (t.is("|=") || t.is("!=") || t.is("|~") || t.is("!~")) {
                in.next();
                stages.add(lineFilter(t));
                continue;
            }
            if (!t.is("|")) {
                return unwrap;
            }
            in.next();
            Token s = in.peek();
            if (s.is("(")) {
                stages.add(new LogQl.LabelFilter(predicate()));
                continue;
            }
            if (s.kind() != Kind.IDENT) {
                throw in.unexpected("a parser, a label filter or a formatting stage after |");
            }
            Token after = in.second();
            boolean isFilter = matchOp(after) != null
                    || Set.of(">", ">=", "<", "<=", "==").contains(after.text()) && after.kind() == Kind.SYMBOL;
            if (isFilter) {
                stages.add(new LogQl.LabelFilter(predicate()));
                continue;
            }
            in.next();
            String word = s.text();
            switch (word) {
                case "json" -> stages.add(new LogQl.JsonParser(extractions()));
                case "logfmt" -> {
                    if (in.peek().is("-")) {
                        throw InvalidLogQl.unsupported(
                                "logfmt flags (--strict, --keep-empty)",
                                in.peek().position());
                    }
                    stages.add(new LogQl.LogfmtParser(extractions()));
                }
                case "pattern" -> {
                    Token p = in.string("a quoted pattern");
                    stages.add(new LogQl.PatternParser(Patterns.check(p.text(), p.position())));
                }
                case "regexp" -> {
                    Token p = in.string("a quoted regular expression");
                    if (Regexes.compile(p.text(), p.position()).namedGroups().isEmpty()) {
                        throw new InvalidLogQl("| regexp needs at least one named group (?P<name>...)", p.position());
                    }
                    stages.add(new LogQl.RegexpParser(p.text()));
                }
                case "line_format" -> {
                    Token p = in.string("a quoted template");
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
        if (in.peek().kind() == Kind.IDENT && in.second().is("(")) {
            throw InvalidLogQl.unsupported(
                    "the line filter function " + in.peek().text() + "()",
                    in.peek().position());
        }
        List<String> values = new ArrayList<>();
        do {
            Token v = in.string("a quoted string after " + op.text());
            if (lineOp == LineOp.MATCHES || lineOp == LineOp.NOT_MATCHES) {
                Regexes.compile(v.text(), v.position());
            }
            values.add(v.text());
        } while (in.accept("or"));
        return new LogQl.LineFilter(lineOp, values);
    }

    private List<Extraction> extractions() {
        List<Extraction> out = new ArrayList<>();
        if (in.peek().kind() != Kind.IDENT || in.peek().is("or") || in.peek().is("and")) {
            return out;
        }
        do {
            String label = in.ident("a label name");
            String expression = label;
            if (in.accept("=")) {
                expression = in.string("a quoted expression").text();
            }
            out.add(new Extraction(label, expression));
        } while (in.accept(","));
        return out;
    }

    private LogQl.LabelFormat labelFormat() {
        List<LabelAssignment> out = new ArrayList<>();
        do {
            String label = in.ident("a label name");
            in.expect("=");
            Token v = in.next();
            if (v.kind() == Kind.STRING) {
                Templates.check(v.text(), v.position());
                out.add(new LabelAssignment(label, v.text(), true));
            } else if (v.kind() == Kind.IDENT) {
                out.add(new LabelAssignment(label, v.text(), false));
            } else {
                throw new InvalidLogQl("expected a label or a quoted template, found " + v.describe(), v.position());
            }
        } while (in.accept(","));
        return new LogQl.LabelFormat(out);
    }

    private List<Matcher> labelList() {
        List<Matcher> out = new ArrayList<>();
        do {
            String label = in.ident("a label name");
            MatchOp op = matchOp(in.peek());
            if (op != null) {
                in.next();
                out.add(matcher(label, op, in.string("a quoted value")));
            } else {
                out.add(new Matcher(label, MatchOp.RE, ".*"));
            }
        } while (in.accept(","));
        return out;
    }

    private Unwrap unwrap() {
        Token t = in.peek();
        ValueKind kind = ValueKind.NUMBER;
        boolean call = false;
        if (t.kind() == Kind.IDENT && in.second().is("(")) {
            kind = switch (t.text()) {
                case "duration", "duration_seconds" -> ValueKind.DURATION;
                case "bytes" -> ValueKind.BYTES;
                default -> throw InvalidLogQl.unsupported("unwrap " + t.text() + "()", t.position());
            };
            in.next();
            in.next();
            call = true;
        }
        String label = in.ident("a label name");
        if (call) {
            in.expect(")");
        }
        return new Unwrap(label, kind);
    }

    private Predicate predicate() {
        in.enter();
        Predicate left = conjunction();
        while (in.accept("or")) {
            left = new Or(left, conjunction());
        }
        in.leave();
        return left;
    }

    private Predicate conjunction() {
        Predicate left = comparison();
        while (true) {
            if (in.accept("and") || in.accept(",")) {
                left = new And(left, comparison());
            } else if (in.peek().kind() == Kind.IDENT
                    && !in.peek().is("or")
                    && !in.peek().is("by")
                    && !in.peek().is("without")
                    && matchOrCompare(in.second())) {
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
        if (in.accept("(")) {
            Predicate p = predicate();
            in.expect(")");
            return p;
        }
        Token name = in.peek();
        String label = in.ident("a label name");
        if (in.peek().is("(")) {
            throw InvalidLogQl.unsupported("the label filter function " + label + "()", name.position());
        }
        Token op = in.next();
        Token value = in.peek();
        MatchOp m = matchOp(op);
        if (m != null && value.kind() == Kind.STRING) {
            in.next();
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
        boolean negative = in.accept("-");
        Token v = in.next();
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
}
