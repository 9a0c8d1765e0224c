package dev.logpipe.query.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RuleGroupsTest {
    @Test
    void aRuleFileInTheRulerFormatIsReadWithItsDefaults() throws Exception {
        RuleGroups g = RuleGroups.parse("acme", """
                groups:
                  - name: errors
                    rules:
                      - alert: Burst
                        expr: sum(count_over_time({level="ERROR"}[5m])) > 3
                        labels: {severity: page}
                """, "rules.yaml");
        assertThat(g.groups()).hasSize(1);
        assertThat(g.groups().get(0).interval()).isEqualTo(Duration.ofMinutes(1));
        RuleGroups.Rule r = g.groups().get(0).rules().get(0);
        assertThat(r.holdFor()).isZero();
        assertThat(r.labels()).containsEntry("severity", "page");
    }

    @Test
    void mistakesNameTheFileAndKeyPath() {
        assertThatThrownBy(() -> RuleGroups.parse("acme", """
                        groups:
                          - name: errors
                            rules:
                              - alert: Ok
                                expr: vector(1)
                              - alert: Bad
                                expr: sum(count_over_time({level="ERROR"} | unpack [5m]))
                        """, "rules.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rules.yaml")
                .hasMessageContaining("groups[0].rules[1].expr")
                .hasMessageContaining("| unpack is not supported");
        assertThatThrownBy(() -> RuleGroups.parse("acme", """
                        groups:
                          - name: errors
                            rules:
                              - alert: Lines
                                expr: '{level="ERROR"}'
                        """, "rules.yaml"))
                .hasMessageContaining("must be a metric query");
        assertThatThrownBy(() -> RuleGroups.parse("acme", """
                        groups:
                          - name: r
                            rules:
                              - alert: X
                                expr: vector(1)
                                for: soon
                        """, "rules.yaml"))
                .hasMessageContaining("groups[0].rules[0].for");
    }

    @Test
    void recordingRulesAreReadAndTheirMistakesNamed() throws Exception {
        RuleGroups g = RuleGroups.parse("acme", """
                groups:
                  - name: rec
                    interval: 15s
                    rules:
                      - record: service:log_errors:count1m
                        expr: sum by (service) (count_over_time({level="ERROR"}[1m]))
                        labels: {team: pay}
                """, "rules.yaml");
        RuleGroups.Rule r = g.groups().get(0).rules().get(0);
        assertThat(r.recording()).isTrue();
        assertThat(r.name()).isEqualTo("service:log_errors:count1m");
        assertThat(r.labels()).containsEntry("team", "pay");
        assertThat(g.hasAlertingRules()).isFalse();

        String[][] mistakes = {
            {"record: errors_total", "groups[0].rules[0].record: must match", "with at least one colon"},
            {"record: 'a:b-c'", "groups[0].rules[0].record: must match", "was \"a:b-c\""},
            {"record: a:b\n    alert: X", "a rule is either an alerting rule (alert) or a recording rule", ""},
            {"record: a:b\n    for: 1m", "groups[0].rules[0].for: only for alerting rules", ""},
            {"record: a:b\n    annotations: {x: y}", "groups[0].rules[0].annotations: only for alerting", ""},
            {"record: a:b\n    labels: {__name__: x}", "groups[0].rules[0].labels: label name \"__name__\"", ""},
            {"record: a:b\n    labels: {bad-name: x}", "label name \"bad-name\" must match", ""},
            {
                "record: a:b\n    expr: vector(1)\n  - record: a:b",
                "groups[0].rules[1].record: \"a:b\" is the name of an" + " earlier rule",
                ""
            },
        };
        for (String[] m : mistakes) {
            String yaml = "groups:\n- name: r\n  rules:\n  - " + m[0] + "\n    expr: vector(1)\n";
            assertThatThrownBy(() -> RuleGroups.parse("acme", yaml, "rules.yaml"))
                    .as(m[0])
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("rules.yaml")
                    .hasMessageContaining(m[1])
                    .hasMessageContaining(m[2]);
        }
    }

    @Test
    void anAlertIsPendingForItsHoldThenFiringThenResolvedWhenItLeavesTheResult() {
        AlertState s = new AlertState();
        SortedMap<String, String> labels = new TreeMap<>(Map.of("alertname", "X"));
        Instant t0 = Instant.parse("2026-12-01T00:00:00Z");
        Duration hold = Duration.ofSeconds(30);
        assertThat(s.update(Map.of(labels, 5.0), t0, hold)).isEmpty();
        assertThat(s.active().get(0).phase).isEqualTo(AlertState.Phase.PENDING);
        s.update(Map.of(labels, 6.0), t0.plusSeconds(29), hold);
        assertThat(s.active().get(0).phase).isEqualTo(AlertState.Phase.PENDING);
        s.update(Map.of(labels, 7.0), t0.plusSeconds(30), hold);
        assertThat(s.active().get(0).phase).isEqualTo(AlertState.Phase.FIRING);
        assertThat(s.active().get(0).activeAt).isEqualTo(t0);
        List<AlertState.Alert> resolved = s.update(Map.of(), t0.plusSeconds(40), hold);
        assertThat(resolved).hasSize(1);
        assertThat(resolved.get(0).resolvedAt).isEqualTo(t0.plusSeconds(40));
        assertThat(s.active()).isEmpty();
        // a pending alert that leaves the result is dropped without a resolve
        s.update(Map.of(labels, 1.0), t0.plusSeconds(50), hold);
        assertThat(s.update(Map.of(), t0.plusSeconds(51), hold)).isEmpty();
    }

    @Test
    void annotationsTakeTheValueAndLabels() {
        AlertState.Alert a = new AlertState.Alert(new TreeMap<>(Map.of("service", "api")), Instant.EPOCH);
        a.value = 8;
        assertThat(RuleEvaluator.render("{{ $value }} errors in {{$labels.service}}{{ $labels.none }}", a))
                .isEqualTo("8 errors in api");
    }
}
