package dev.logpipe.query.internal.loki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.query.internal.loki.LogQl.LogQuery;
import dev.logpipe.query.internal.loki.LogQl.RangeAgg;
import dev.logpipe.query.internal.loki.LogQl.VectorAgg;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class LogQlParserTest {
    @Test
    void parsesTheSubsetPeopleTypeAndGrafanaGenerates() {
        for (String q : List.of(
                "{service=\"api\"}",
                "{service=\"api\", level!=\"DEBUG\", region=~\"eu-.*\", instance_id!~\"test.*\"}",
                "{service=\"api\"} |= \"timeout\" != \"health\" |~ \"(?i)error\" !~ \"^GET\"",
                "{service=\"api\"} |= \"a\" or \"b\"",
                "{service=\"api\"} | json | status >= 500 and method=\"GET\" or took > 1.5s",
                "{service=\"api\"} | json status=\"response.status\", first=\"items[0]\"",
                "{service=\"api\"} | logfmt | size > 10KB",
                "{service=\"api\"} | pattern \"<ip> - <_> <method> <path>\" | path=~\"/v1/.*\"",
                "{service=\"api\"} | regexp \"(?P<status>\\\\d{3})\" | status = 200",
                "{service=\"api\"} | line_format \"{{.level}} {{ .service }}: {{__line__}}\"",
                "{service=\"api\"} | label_format svc=service, msg=\"{{.level}}!\" | drop instance_id, region=\"x\"",
                "{service=\"api\"} | keep service, level | __error__=\"\"",
                "sum by (level, detected_level) (count_over_time({service=\"api\"} [1m]))",
                "sum(rate({service=\"api\"} |= \"x\" [5m])) by (level)",
                "topk(3, sum by (service) (bytes_over_time({level=\"ERROR\"}[1h])))",
                "bottomk(1, bytes_rate({level=\"ERROR\"}[30s]))",
                "avg_over_time({service=\"api\"} | logfmt | unwrap duration(took) [5m]) by (service)",
                "quantile_over_time(0.99, {service=\"api\"} | json | unwrap took_ms | __error__=\"\" [5m])",
                "max without (instance_id) (max_over_time({service=\"api\"} | json | unwrap bytes(size) [1m]))",
                "count(count_over_time({service=\"api\"}[1m])) > 2",
                "sum(count_over_time({service=\"api\"}[1m])) / 60 * 100 - 1",
                "-sum(count_over_time({service=\"api\"}[1m])) ^ 2",
                "count_over_time({service=\"api\"}[1m]) > bool 3",
                "vector(1)+vector(1)",
                "1 + 2 * 3")) {
            assertThat(LogQlParser.parse(q)).as(q).isNotNull();
        }
    }

    @Test
    void theTreeKeepsWhatWasWritten() {
        VectorAgg v = (VectorAgg)
                LogQlParser.parse("sum by (level) (count_over_time({service=\"api\"} |= \"x\" | json [1m]))");
        assertThat(v.op()).isEqualTo(LogQl.VectorOp.SUM);
        assertThat(v.grouping().labels()).containsExactly("level");
        RangeAgg r = (RangeAgg) v.inner();
        assertThat(r.rangeMillis()).isEqualTo(60_000);
        assertThat(r.query().selector()).containsExactly(new LogQl.Matcher("service", LogQl.MatchOp.EQ, "api"));
        assertThat(r.query().pipeline()).hasSize(2);
        LogQuery l = (LogQuery) LogQlParser.parse("{a=\"x\"} | b > 1h30m");
        LogQl.Compare c = (LogQl.Compare) ((LogQl.LabelFilter) l.pipeline().get(0)).predicate();
        assertThat(c.value()).isEqualTo(5400);
        // precedence: * before +, ^ to the right
        LogQl.Binary b = (LogQl.Binary) LogQlParser.parse("1 + 2 * 3");
        assertThat(b.op()).isEqualTo(LogQl.BinaryOp.ADD);
    }

    @Test
    void unsupportedConstructsAreRefusedByName() {
        Map<String, String> cases = Map.of(
                "{a=\"x\"} | unpack", "| unpack",
                "stddev_over_time({a=\"x\"} | unwrap y [1m])", "stddev_over_time",
                "sum(count_over_time({a=\"x\"}[1m])) or vector(0)", "set operator \"or\"",
                "count_over_time({a=\"x\"}[1m]) / on(a) count_over_time({a=\"x\"}[1m])", "vector matching",
                "{a=\"x\"} | line_format \"{{ToUpper .a}}\"", "template action",
                "{a=\"x\"} |= ip(\"1.2.3.4\")", "line filter function ip()",
                "count_over_time({a=\"x\"}[1m] offset 1h)", "offset",
                "{a=\"x\"} | logfmt --strict", "logfmt flags");
        cases.forEach((q, named) -> assertThatThrownBy(() -> LogQlParser.parse(q))
                .as(q)
                .isInstanceOf(InvalidLogQl.class)
                .hasMessageContaining(named)
                .hasMessageContaining("not supported"));
        assertThatThrownBy(() -> LogQlParser.parse("{a=~\"(\"}"))
                .isInstanceOf(InvalidLogQl.class)
                .hasMessageContaining("invalid regular expression");
        assertThatThrownBy(() -> LogQlParser.parse("{a=\"x\"} + 1")).hasMessageContaining("range function");
        assertThatThrownBy(() -> LogQlParser.parse("sum_over_time({a=\"x\"}[1m])"))
                .hasMessageContaining("unwrap");
    }

    @Provide
    Arbitrary<String> soups() {
        Arbitrary<String> pieces = Arbitraries.of(
                "{",
                "}",
                "(",
                ")",
                "[",
                "]",
                ",",
                "\"",
                "`",
                "\\",
                "=",
                "!=",
                "=~",
                "!~",
                "|=",
                "|~",
                "|",
                ">",
                ">=",
                "<",
                "==",
                "+",
                "-",
                "*",
                "/",
                "%",
                "^",
                " ",
                "a",
                "service",
                "\"api\"",
                "\"(\"",
                "5m",
                "1h30m",
                "10KB",
                "1e3",
                ".5",
                "0.99",
                "json",
                "logfmt",
                "pattern",
                "regexp",
                "line_format",
                "label_format",
                "drop",
                "keep",
                "unwrap",
                "duration(",
                "bytes(",
                "by",
                "without",
                "bool",
                "and",
                "or",
                "unless",
                "on",
                "offset",
                "sum",
                "count",
                "avg",
                "min",
                "max",
                "topk",
                "bottomk",
                "count_over_time",
                "rate",
                "quantile_over_time",
                "sum_over_time",
                "vector",
                "\"{{.a}}\"",
                "\"<a> <_>\"",
                "\"(?P<x>a)\"",
                "__error__",
                "#",
                "\n",
                "é",
                "\u0000",
                "99999999999999999999",
                "ms",
                "µs");
        return pieces.list().ofMaxSize(40).map(l -> String.join("", l));
    }

    @Property(tries = 3000)
    void anyTextParsesOrIsRefusedWithAReason(@ForAll("soups") String text) {
        try {
            LogQlParser.parse(text);
        } catch (InvalidLogQl e) {
            assertThat(e.getMessage()).startsWith("parse error at position ");
        }
    }

    @Property(tries = 300)
    void deepNestingIsRefusedNotOverflowed(@ForAll("depths") int depth) {
        String q = "(".repeat(depth) + "1" + ")".repeat(depth);
        try {
            LogQlParser.parse(q);
            assertThat(depth).isLessThanOrEqualTo(64);
        } catch (InvalidLogQl e) {
            assertThat(e.getMessage()).contains("nested");
        }
    }

    @Provide
    Arbitrary<Integer> depths() {
        return Arbitraries.integers().between(1, 3000);
    }
}
