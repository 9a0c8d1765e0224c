package dev.logpipe.query.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.query.config.QueryConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Recording rules through the evaluator, with our own seam for the queries: what /metrics gets, and when not. */
class RecordingRulesTest {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    final AtomicReference<Object> answer = new AtomicReference<>();

    final RuleEvaluator.Queries queries = (tenant, rule, at) -> {
        Object a = answer.get();
        if (a instanceof Exception e) {
            throw e;
        }
        @SuppressWarnings("unchecked")
        Map<SortedMap<String, String>, Double> r = (Map<SortedMap<String, String>, Double>) a;
        return r;
    };

    RuleEvaluator evaluator(RuleGroups groups) {
        return new RuleEvaluator(
                List.of(groups),
                new QueryConfig.Alerting(Optional.empty(), Optional.empty(), "", Duration.ofMinutes(1), List.of()),
                InstantSource.fixed(NOW),
                queries);
    }

    static RuleGroups rules(String tenant) throws Exception {
        return RuleGroups.parse(tenant, """
                groups:
                  - name: rec
                    rules:
                      - record: service:log_errors:count1m
                        expr: sum by (service) (count_over_time({level="ERROR"}[1m]))
                        labels: {team: "pay\\"ments"}
                """, "rules.yaml");
    }

    static SortedMap<String, String> labels(String... kv) {
        SortedMap<String, String> m = new TreeMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void aRecordingRuleWritesItsSeriesWithTheRuleLabelsAndTheTenantAndReplacesThemEachTime() throws Exception {
        RuleGroups g = rules("acme");
        RuleEvaluator e = evaluator(g);
        Map<SortedMap<String, String>, Double> r = new LinkedHashMap<>();
        r.put(labels("service", "api", "tenant_id", "forged"), 7.0);
        r.put(labels("service", "pay\nments"), 0.5);
        answer.set(r);
        e.evaluate("acme", g.groups().get(0));

        assertThat(e.recorded().render()).isEqualTo("""
                        # HELP service:log_errors:count1m logpipe recording rule
                        # TYPE service:log_errors:count1m gauge
                        service:log_errors:count1m{service="api",team="pay\\"ments",tenant_id="acme"} 7
                        service:log_errors:count1m{service="pay\\nments",team="pay\\"ments",tenant_id="acme"} 0.5
                        """);
        assertThat(e.status()).singleElement().satisfies(s -> {
            assertThat(s.recording()).isTrue();
            assertThat(s.state()).isEqualTo("recording");
            assertThat(s.active()).isEqualTo(2);
            assertThat(s.lastError()).isNull();
        });

        answer.set(Map.of(labels("service", "db"), 1.0));
        e.evaluate("acme", g.groups().get(0));
        assertThat(e.recorded().render()).contains("service=\"db\"").doesNotContain("service=\"api\"");
    }

    @Test
    void aFailedEvaluationDropsTheSeriesInsteadOfKeepingStaleValues() throws Exception {
        RuleGroups g = rules("acme");
        RuleEvaluator e = evaluator(g);
        answer.set(Map.of(labels("service", "api"), 7.0));
        e.evaluate("acme", g.groups().get(0));
        assertThat(e.recorded().render()).contains("} 7\n");

        answer.set(new java.io.IOException("query_timeout"));
        e.evaluate("acme", g.groups().get(0));
        assertThat(e.recorded().render()).isEmpty();
        assertThat(e.status().get(0).lastError()).isEqualTo("query_timeout");
    }

    @Test
    void aRuleGivingMoreSeriesThanItMayWritesNoneAndSaysWhy() throws Exception {
        RuleGroups g = rules("acme");
        RuleEvaluator e = evaluator(g);
        Map<SortedMap<String, String>, Double> many = new LinkedHashMap<>();
        for (int i = 0; i <= RecordedSeries.MAX_PER_RULE; i++) {
            many.put(labels("service", "s" + i), 1.0);
        }
        answer.set(many);
        e.evaluate("acme", g.groups().get(0));
        assertThat(e.recorded().render()).isEmpty();
        assertThat(e.status().get(0).lastError()).contains("more than the 1000 a recording rule may write");
    }

    @Test
    void allRulesTogetherAreBoundedToo() {
        RecordedSeries s = new RecordedSeries();
        List<RecordedSeries.Sample> full = new java.util.ArrayList<>();
        for (int i = 0; i < RecordedSeries.MAX_PER_RULE; i++) {
            full.add(new RecordedSeries.Sample("a:b", labels("i", "" + i), i));
        }
        for (int r = 0; r < RecordedSeries.MAX_ALL / RecordedSeries.MAX_PER_RULE; r++) {
            s.replace("rule" + r, full);
        }
        assertThat(s.size()).isEqualTo(RecordedSeries.MAX_ALL);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.replace("one-more", List.of(full.get(0))))
                .hasMessageContaining("would pass the 10000");
        s.replace("rule0", full.subList(0, 10)); // a rule replacing its own series frees what it gave back
        s.replace("one-more", List.of(full.get(0)));
        assertThat(s.size()).isEqualTo(RecordedSeries.MAX_ALL - 990 + 1);
    }

    @Test
    void fewSeriesWithHugeLabelsAreBoundedByTheirMemoryNotTheirCount() {
        RecordedSeries s = new RecordedSeries();
        String huge = "x".repeat(100_000); // a label value from a parser, e.g. | json over a long field
        List<RecordedSeries.Sample> rule = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            rule.add(new RecordedSeries.Sample("a:b", labels("i", "" + i, "v", huge), i));
        }
        s.replace("small-enough", rule.subList(0, 20));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.replace("too-much", rule))
                .hasMessageContaining("bytes of series");
        assertThat(s.size()).isEqualTo(20);
        s.drop("small-enough");
        s.replace("too-much", rule); // the memory given back is free again
        assertThat(s.size()).isEqualTo(30);
    }
}
