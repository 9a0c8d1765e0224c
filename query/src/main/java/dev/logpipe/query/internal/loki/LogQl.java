package dev.logpipe.query.internal.loki;

import java.util.List;
import java.util.Objects;

/**
 * The syntax tree of the LogQL subset logpipe answers (docs/loki.md#logql): log queries (a stream selector and a
 * pipeline) and metric queries over them. Built by {@link LogQlParser}; values are immutable.
 */
public final class LogQl {
    private LogQl() {}

    /** A whole query: a log query (streams) or a metric expression (vector, matrix, scalar). */
    public sealed interface Query permits LogQuery, Expr {}

    /** {@code {service="api"} |= "timeout" | json | status >= 500}. */
    public record LogQuery(List<Matcher> selector, List<Stage> pipeline) implements Query {
        public LogQuery {
            selector = List.copyOf(selector);
            pipeline = List.copyOf(pipeline);
        }
    }

    /** A label matcher of a stream selector or a label filter on strings. */
    public record Matcher(String name, MatchOp op, String value) {
        public Matcher {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }
    }

    public enum MatchOp {
        EQ("="),
        NE("!="),
        RE("=~"),
        NRE("!~");

        final String text;

        MatchOp(String text) {
            this.text = text;
        }
    }

    /** One stage of a log pipeline. */
    public sealed interface Stage
            permits LineFilter,
                    JsonParser,
                    LogfmtParser,
                    PatternParser,
                    RegexpParser,
                    LabelFilter,
                    LineFormat,
                    LabelFormat,
                    Drop,
                    Keep {}

    /** {@code |= "a" or "b"}, {@code != "a"}, {@code |~ "re"}, {@code !~ "re"}: the line holds (or not) any value. */
    public record LineFilter(LineOp op, List<String> values) implements Stage {
        public LineFilter {
            values = List.copyOf(values);
        }
    }

    public enum LineOp {
        CONTAINS,
        NOT_CONTAINS,
        MATCHES,
        NOT_MATCHES
    }

    /** {@code | json} (every key, nested keys joined by {@code _}) or {@code | json a="x.y", b} (the named paths). */
    public record JsonParser(List<Extraction> extractions) implements Stage {
        public JsonParser {
            extractions = List.copyOf(extractions);
        }
    }

    /** {@code | logfmt} or {@code | logfmt a="key"}. */
    public record LogfmtParser(List<Extraction> extractions) implements Stage {
        public LogfmtParser {
            extractions = List.copyOf(extractions);
        }
    }

    /** A label taken from a parsed line by an expression (a JSON path, or a logfmt key). */
    public record Extraction(String label, String expression) {}

    /** {@code | pattern "<ip> - <_> [<ts>] <msg>"}. */
    public record PatternParser(String pattern) implements Stage {}

    /** {@code | regexp "(?P<status>\\d{3})"}: named groups become labels. */
    public record RegexpParser(String pattern) implements Stage {}

    /** {@code | status >= 500 and level="error"}. */
    public record LabelFilter(Predicate predicate) implements Stage {}

    /** {@code | line_format "{{.service}} {{.message}}"}. */
    public record LineFormat(String template) implements Stage {}

    /** {@code | label_format dst=src, msg="{{.x}}"}: a rename, or a template. */
    public record LabelFormat(List<LabelAssignment> assignments) implements Stage {
        public LabelFormat {
            assignments = List.copyOf(assignments);
        }
    }

    public record LabelAssignment(String label, String source, boolean template) {}

    /** {@code | drop a, b="x"}. */
    public record Drop(List<Matcher> labels) implements Stage {
        public Drop {
            labels = List.copyOf(labels);
        }
    }

    /** {@code | keep a, b}. */
    public record Keep(List<Matcher> labels) implements Stage {
        public Keep {
            labels = List.copyOf(labels);
        }
    }

    /** A label filter expression. */
    public sealed interface Predicate permits And, Or, StringMatch, Compare {}

    public record And(Predicate left, Predicate right) implements Predicate {}

    public record Or(Predicate left, Predicate right) implements Predicate {}

    public record StringMatch(Matcher matcher) implements Predicate {}

    /** A number, duration (seconds) or bytes comparison; {@code kind} says how the label's value is read. */
    public record Compare(String label, CompareOp op, double value, ValueKind kind) implements Predicate {}

    public enum CompareOp {
        EQ,
        NE,
        GT,
        GE,
        LT,
        LE
    }

    public enum ValueKind {
        NUMBER,
        DURATION,
        BYTES
    }

    /** A metric expression. */
    public sealed interface Expr extends Query permits Scalar, VectorLiteral, RangeAgg, VectorAgg, Binary, Negate {}

    public record Scalar(double value) implements Expr {}

    /** {@code vector(1)}: one series without labels. */
    public record VectorLiteral(double value) implements Expr {}

    /**
     * {@code count_over_time({...} |= "x" [5m])}; {@code param} is quantile_over_time's φ, {@code unwrap} the label
     * whose value is sampled (null for the counting functions), {@code grouping} an optional {@code by/without}.
     */
    public record RangeAgg(RangeFn fn, LogQuery query, long rangeMillis, Double param, Unwrap unwrap, Grouping grouping)
            implements Expr {}

    public enum RangeFn {
        COUNT_OVER_TIME,
        RATE,
        BYTES_OVER_TIME,
        BYTES_RATE,
        SUM_OVER_TIME,
        AVG_OVER_TIME,
        MIN_OVER_TIME,
        MAX_OVER_TIME,
        FIRST_OVER_TIME,
        LAST_OVER_TIME,
        QUANTILE_OVER_TIME;

        boolean needsUnwrap() {
            return ordinal() >= SUM_OVER_TIME.ordinal();
        }
    }

    /** {@code | unwrap took_ms}, {@code | unwrap duration(latency)}, {@code | unwrap bytes(size)}. */
    public record Unwrap(String label, ValueKind kind) {}

    /** {@code by (a, b)} or {@code without (a)}. */
    public record Grouping(boolean without, List<String> labels) {
        public Grouping {
            labels = List.copyOf(labels);
        }
    }

    /** {@code sum by (level) (...)}, {@code topk(5, ...)}. */
    public record VectorAgg(VectorOp op, Grouping grouping, Integer param, Expr inner) implements Expr {}

    public enum VectorOp {
        SUM,
        COUNT,
        AVG,
        MIN,
        MAX,
        TOPK,
        BOTTOMK
    }

    /** {@code a + b}; {@code bool} keeps comparison results as 0/1 instead of filtering. */
    public record Binary(BinaryOp op, Expr left, Expr right, boolean bool) implements Expr {}

    public enum BinaryOp {
        ADD,
        SUB,
        MUL,
        DIV,
        MOD,
        POW,
        EQ,
        NE,
        GT,
        GE,
        LT,
        LE;

        boolean comparison() {
            return ordinal() >= EQ.ordinal();
        }
    }

    public record Negate(Expr inner) implements Expr {}
}
