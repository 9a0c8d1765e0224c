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
 * for, labels, annotations}), with LogQL metric expressions; read and validated once, every error naming the file
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

    /** An alerting rule: its name, expression (text and tree), how long it must hold, its labels and annotations. */
    public record Rule(
            String alert,
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
            String name = g.requiredString("name");
            if (!names.add(name)) {
                throw new ConfigException(g.keyPath("name") + ": group \"" + name + "\" is listed twice");
            }
            Duration interval = g.duration("interval", DEFAULT_INTERVAL, Duration.ofSeconds(1));
            List<Rule> rules = new ArrayList<>();
            for (ConfigNode r : g.children("rules")) {
                if (r.has("record")) {
                    throw new ConfigException(r.keyPath("record") + ": recording rules are not supported yet "
                            + "(docs/loki.md#alert-rules); write an alerting rule");
                }
                String alert = r.requiredString("alert");
                if (!alert.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw new ConfigException(
                            r.keyPath("alert") + ": must match [A-Za-z_][A-Za-z0-9_]*, was \"" + alert + "\"");
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
                Duration holdFor = r.duration("for", Duration.ZERO, Duration.ZERO);
                Map<String, String> labels = r.stringMap("labels");
                Map<String, String> annotations = r.stringMap("annotations");
                r.rejectUnknownKeys();
                rules.add(new Rule(alert, expr, tree, holdFor, labels, annotations));
            }
            g.rejectUnknownKeys();
            groups.add(new Group(name, interval, rules));
        }
        root.rejectUnknownKeys();
        return new RuleGroups(tenant, groups);
    }
}
