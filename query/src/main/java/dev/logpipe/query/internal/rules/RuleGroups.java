package dev.logpipe.query.internal.rules;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.query.internal.loki.InvalidLogQl;
import dev.logpipe.query.internal.loki.LogQl;
import dev.logpipe.query.internal.loki.LogQlParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A tenant's rule groups in the Prometheus/Loki ruler format ({@code groups: - name, interval, rules: - alert, expr,
 * for, labels, annotations} or {@code - record, expr, labels}), with LogQL metric expressions; read and validated once, every error naming the file
 * and the key path ({@code rules.yaml: groups[0].rules[1].expr: parse error at position 7: ...}).
 */
public record RuleGroups(String tenant, List<Group> groups) {
    public RuleGroups {
        groups = List.copyOf(groups);
    }

    public record Group(String name, Duration interval, List<Rule> rules) {
        public Group {
            rules = List.copyOf(rules);
        }
    }

    /**
     * A rule: an alerting rule ({@code alert:} its name, how long it must hold, its labels and annotations) or a
     * recording rule ({@code record:} the series name its results get on {@code /metrics}, its labels; no hold, no
     * annotations), with its expression as text and tree.
     */
    public record Rule(
            String name,
            boolean recording,
            String expr,
            LogQl.Expr tree,
            Duration holdFor,
            Map<String, String> labels,
            Map<String, String> annotations) {
        public Rule {
            labels = Map.copyOf(labels);
            annotations = Map.copyOf(annotations);
        }
    }

    /** Whether any rule is an alerting rule (those need alerting.alertmanager_url or webhook_url). */
    public boolean hasAlertingRules() {
        return groups.stream().flatMap(g -> g.rules().stream()).anyMatch(r -> !r.recording());
    }

    private static final String LABEL_NAME = "[A-Za-z_][A-Za-z0-9_]*";

    /** A Prometheus metric name with a colon: the recording-rule convention, and never one of logpipe's own names. */
    private static final String RECORD_NAME = "[A-Za-z_:][A-Za-z0-9_:]*";

    static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

    public static RuleGroups load(String tenant, Path file) throws ConfigException {
        return parse(tenant, ConfigNode.readFile(file), file.toString());
    }

    public static RuleGroups parse(String tenant, String yaml, String origin) throws ConfigException {
        try {
            return read(tenant, yaml, origin);
        } catch (ConfigException e) {
            throw e.getMessage().startsWith(origin) ? e : new ConfigException(origin + ": " + e.getMessage());
        }
    }

    private static RuleGroups read(String tenant, String yaml, String origin) throws ConfigException {
        ConfigNode root = ConfigNode.fromYaml(yaml, origin);
        List<Group> groups = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ConfigNode g : root.children("groups")) {
            Group group = group(g);
            if (!names.add(group.name())) {
                throw new ConfigException(g.keyPath("name") + ": group \"" + group.name() + "\" is listed twice");
            }
            groups.add(group);
        }
        root.rejectUnknownKeys();
        return new RuleGroups(tenant, groups);
    }

    /**
     * One group in the ruler format ({@code name, interval, rules}) on its own, as the admin API takes it; errors
     * name {@code origin} and the key path in the group ({@code rules[1].expr: ...}).
     */
    public static Group parseGroup(String yaml, String origin) throws ConfigException {
        try {
            ConfigNode root = ConfigNode.fromYaml(yaml, origin);
            return group(root);
        } catch (ConfigException e) {
            throw e.getMessage().startsWith(origin) ? e : new ConfigException(origin + ": " + e.getMessage());
        }
    }

    private static Group group(ConfigNode g) throws ConfigException {
        String name = g.requiredString("name");
        Duration interval = g.duration("interval", DEFAULT_INTERVAL, Duration.ofSeconds(1));
        List<Rule> rules = new ArrayList<>();
        Set<String> ruleNames = new HashSet<>();
        for (ConfigNode r : g.children("rules")) {
            boolean recording = r.has("record");
            if (recording && r.has("alert")) {
                throw new ConfigException(r.keyPath("record") + ": a rule is either an alerting rule (alert) or "
                        + "a recording rule (record), not both");
            }
            String ruleName = recording ? r.requiredString("record") : r.requiredString("alert");
            if (recording && (!ruleName.matches(RECORD_NAME) || ruleName.indexOf(':') < 0)) {
                throw new ConfigException(r.keyPath("record") + ": must match " + RECORD_NAME
                        + " with at least one colon (level:metric:operations, as Prometheus recording rules "
                        + "are named, e.g. service:log_errors:count5m), was \"" + ruleName + "\"");
            }
            if (!recording && !ruleName.matches(LABEL_NAME)) {
                throw new ConfigException(
                        r.keyPath("alert") + ": must match " + LABEL_NAME + ", was \"" + ruleName + "\"");
            }
            if (!ruleNames.add(ruleName)) {
                throw new ConfigException(r.keyPath(recording ? "record" : "alert") + ": \"" + ruleName
                        + "\" is the name of an earlier rule of this group; give each rule of a group its own name");
            }
            String expr = r.requiredString("expr");
            LogQl.Query q;
            try {
                q = LogQlParser.parse(expr);
            } catch (InvalidLogQl e) {
                throw new ConfigException(r.keyPath("expr") + ": " + e.getMessage());
            }
            if (!(q instanceof LogQl.Expr tree)) {
                throw new ConfigException(r.keyPath("expr") + ": must be a metric query such as "
                        + "sum(count_over_time({level=\"ERROR\"}[5m])) > 10, not a log query");
            }
            if (recording && (r.has("for") || r.has("annotations"))) {
                throw new ConfigException(r.keyPath(r.has("for") ? "for" : "annotations")
                        + ": only for alerting rules; a recording rule has record, expr and labels");
            }
            Duration holdFor = r.duration("for", Duration.ZERO, Duration.ZERO);
            Map<String, String> labels = r.stringMap("labels");
            for (String l : labels.keySet()) {
                if (!l.matches(LABEL_NAME) || l.startsWith("__")) {
                    throw new ConfigException(r.keyPath("labels") + ": label name \"" + l + "\" must match "
                            + LABEL_NAME + " and not start with __");
                }
            }
            Map<String, String> annotations = r.stringMap("annotations");
            r.rejectUnknownKeys();
            rules.add(new Rule(ruleName, recording, expr, tree, holdFor, labels, annotations));
        }
        g.rejectUnknownKeys();
        return new Group(name, interval, rules);
    }
}
