package dev.logpipe.query.internal.rules;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.loki.LogQl;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates the tenants' alerting and recording rules on schedule, one group after another on one owned thread (each group every
 * {@code interval}; a slow group delays the others, never piles up), through {@link Queries} (the query service's
 * planner, budget, admission and audit, scoped to the rule's tenant only), and sends firing alerts (again every
 * {@code resend_interval}) and resolved ones through {@link AlertSender}. {@link #start()} starts the thread,
 * {@link #close()} stops it (idempotent).
 */
public final class RuleEvaluator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RuleEvaluator.class);
    private static final Pattern TEMPLATE =
            Pattern.compile("\\{\\{\\s*\\$(value|sample_lines|labels\\.([A-Za-z_][A-Za-z0-9_]*))\\s*}}");

    /** Evaluates a rule's expression for its tenant at a time: each present series' labels and value. */
    public interface Queries {
        Map<SortedMap<String, String>, Double> evaluate(String tenant, RuleGroups.Rule rule, Instant at)
                throws Exception;

        /** Up to {@code n} of the newest lines behind an alert (its labels) between two times. */
        default List<String> sampleLines(
                String tenant, RuleGroups.Rule rule, Map<String, String> labels, Instant from, Instant to, int n)
                throws Exception {
            return List.of();
        }
    }

    /** How many matching lines {@code {{ $sample_lines }}} in an annotation shows. */
    static final int SAMPLE_LINES = 3;

    /**
     * What the status API shows of a rule: an alerting rule's state is inactive, pending or firing and {@code active}
     * its alerts; a recording rule's state is {@code recording} and {@code active} the series it wrote.
     */
    public record RuleStatus(
            String tenant,
            String group,
            String name,
            boolean recording,
            String state,
            Instant lastEvaluation,
            String lastError,
            int active) {}

    private final List<RuleGroups> tenants;
    private final QueryConfig.Alerting alerting;
    private final InstantSource clock;
    private final Queries queries;
    private final AlertSender sender;
    private final Map<String, AlertState> states = new ConcurrentHashMap<>();
    private final Map<String, RuleStatus> status = new ConcurrentHashMap<>();
    private final RecordedSeries recorded = new RecordedSeries();
    private ScheduledExecutorService thread;
    private boolean closed;
    private boolean stoppedCleanly;
    /** Set by {@link #stop()}: a group being evaluated ends after its current rule. */
    private volatile boolean stopping;

    /** How long {@link #stop()} waits for an evaluation in flight: one rule's query and its sends, with room. */
    static final long STOP_WAIT_SECONDS = 30;

    public RuleEvaluator(
            List<RuleGroups> tenants, QueryConfig.Alerting alerting, InstantSource clock, Queries queries) {
        this(tenants, alerting, clock, queries, new AlertSender(alerting.alertmanager(), alerting.webhook()), Map.of());
    }

    /**
     * An evaluator that takes over from another ({@link RuleSets} rebuilding): the same sender, and the alert states of
     * the rules it still has ({@code carried}, by {@link #key}), so a pending alert keeps its {@code for} clock and a
     * firing one is not announced again.
     */
    RuleEvaluator(
            List<RuleGroups> tenants,
            QueryConfig.Alerting alerting,
            InstantSource clock,
            Queries queries,
            AlertSender sender,
            Map<String, AlertState> carried) {
        this.tenants = List.copyOf(tenants);
        this.alerting = alerting;
        this.clock = clock;
        this.queries = queries;
        this.sender = sender;
        Set<String> keys = alertingKeys(tenants);
        carried.forEach((k, v) -> {
            if (keys.contains(k)) {
                states.put(k, v);
            }
        });
    }

    /** A rule's key: its tenant, group and name. */
    static String key(String tenant, String group, String name) {
        return tenant + "\u0000" + group + "\u0000" + name;
    }

    /** The keys of every alerting rule of {@code tenants} (a recording rule has no alert state). */
    static Set<String> alertingKeys(List<RuleGroups> tenants) {
        Set<String> out = new HashSet<>();
        for (RuleGroups t : tenants) {
            for (RuleGroups.Group g : t.groups()) {
                for (RuleGroups.Rule r : g.rules()) {
                    if (!r.recording()) {
                        out.add(key(t.tenant(), g.name(), r.name()));
                    }
                }
            }
        }
        return out;
    }

    /** The alert states, for the evaluator that takes over once {@link #stop()} answered true. */
    Map<String, AlertState> states() {
        return Map.copyOf(states);
    }

    /**
     * Sends a resolve for every firing alert of a rule not in {@code kept} (its group was deleted or changed): nothing
     * else would ever end it before its {@code endsAt}. Call after {@link #stop()} answered true.
     */
    void resolveAllExcept(Set<String> kept) {
        Instant now = clock.instant();
        List<AlertSender.Outgoing> out = new ArrayList<>();
        for (RuleGroups t : tenants) {
            for (RuleGroups.Group g : t.groups()) {
                for (RuleGroups.Rule rule : g.rules()) {
                    String key = key(t.tenant(), g.name(), rule.name());
                    AlertState state = states.get(key);
                    if (rule.recording() || kept.contains(key) || state == null) {
                        continue;
                    }
                    for (AlertState.Alert a : state.active()) {
                        if (a.phase == AlertState.Phase.FIRING) {
                            out.add(outgoing(rule, a, now, now));
                        }
                    }
                }
            }
        }
        if (!out.isEmpty()) {
            sender.send(out, now);
        }
    }

    public synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "query-rules");
            t.setDaemon(true);
            return t;
        });
        for (RuleGroups t : tenants) {
            for (RuleGroups.Group g : t.groups()) {
                long every = g.interval().toMillis();
                thread.scheduleWithFixedDelay(() -> evaluateSafely(t.tenant(), g), 0, every, TimeUnit.MILLISECONDS);
            }
        }
    }

    private void evaluateSafely(String tenant, RuleGroups.Group g) {
        try {
            evaluate(tenant, g);
        } catch (RuntimeException e) { // the thread's top: count it and go on with the next evaluation
            log.warn("rule group {} of tenant {} failed: {}", g.name(), tenant, e.toString(), e);
        }
    }

    /** One evaluation of a group at the clock's now; sends what it fires, re-sends and resolves. */
    void evaluate(String tenant, RuleGroups.Group g) {
        Instant now = clock.instant();
        List<AlertSender.Outgoing> out = new ArrayList<>();
        Duration valid = Duration.ofMillis(
                4 * Math.max(alerting.resendInterval().toMillis(), g.interval().toMillis()));
        for (RuleGroups.Rule rule : g.rules()) {
            if (stopping) {
                break; // stopped: what was decided so far is still sent below
            }
            String key = key(tenant, g.name(), rule.name());
            if (rule.recording()) {
                record(tenant, g, rule, key, now);
                continue;
            }
            AlertState state = states.computeIfAbsent(key, k -> new AlertState());
            Map<SortedMap<String, String>, Double> result;
            try {
                result = queries.evaluate(tenant, rule, now);
            } catch (Exception e) {
                status.put(
                        key,
                        new RuleStatus(
                                tenant,
                                g.name(),
                                rule.name(),
                                false,
                                phase(state),
                                now,
                                e.getMessage(),
                                state.active().size()));
                continue; // as Prometheus: the alerts keep their state until an evaluation succeeds
            }
            Map<SortedMap<String, String>, Double> alerts = new LinkedHashMap<>();
            result.forEach((labels, value) -> {
                SortedMap<String, String> l = new TreeMap<>(labels);
                l.putAll(rule.labels());
                l.put("alertname", rule.name());
                l.put("tenant_id", tenant);
                alerts.put(l, value);
            });
            List<AlertState.Alert> resolved = state.update(alerts, now, rule.holdFor());
            for (AlertState.Alert a : state.active()) {
                boolean due = a.lastSent == null || !now.isBefore(a.lastSent.plus(alerting.resendInterval()));
                if (a.phase == AlertState.Phase.FIRING && due) {
                    if (a.samples == null
                            && rule.annotations().values().stream().anyMatch(v -> v.contains("$sample_lines"))) {
                        a.samples = samples(tenant, rule, a, now);
                    }
                    out.add(outgoing(rule, a, now.plus(valid), now));
                    a.lastSent = now;
                }
            }
            for (AlertState.Alert a : resolved) {
                out.add(outgoing(rule, a, a.resolvedAt, now));
            }
            status.put(
                    key,
                    new RuleStatus(
                            tenant,
                            g.name(),
                            rule.name(),
                            false,
                            phase(state),
                            now,
                            null,
                            state.active().size()));
        }
        sender.send(out, now);
    }

    /**
     * One evaluation of a recording rule: its series, named {@code record}, with the rule's labels and the tenant's
     * {@code tenant_id} over the result's, replace the rule's last ones; a failure drops them (no stale values).
     */
    private void record(String tenant, RuleGroups.Group g, RuleGroups.Rule rule, String key, Instant now) {
        String error = null;
        int written = 0;
        try {
            List<RecordedSeries.Sample> samples = new ArrayList<>();
            queries.evaluate(tenant, rule, now).forEach((labels, value) -> {
                SortedMap<String, String> l = new TreeMap<>(labels);
                l.putAll(rule.labels());
                l.put("tenant_id", tenant);
                samples.add(new RecordedSeries.Sample(rule.name(), l, value));
            });
            recorded.replace(key, samples);
            written = samples.size();
        } catch (Exception e) {
            recorded.drop(key);
            error = e.getMessage();
        }
        status.put(key, new RuleStatus(tenant, g.name(), rule.name(), true, "recording", now, error, written));
    }

    /** The newest lines behind a firing alert (once, when it first fires); none when they cannot be read. */
    private String samples(String tenant, RuleGroups.Rule rule, AlertState.Alert a, Instant now) {
        Map<String, String> labels = new TreeMap<>(a.labels);
        labels.remove("alertname");
        labels.remove("tenant_id");
        rule.labels().keySet().forEach(labels::remove);
        LogQl.RangeAgg r = firstRange(rule.tree());
        Instant from = a.activeAt.minusMillis(r == null ? 0 : r.rangeMillis());
        try {
            return String.join("\n", queries.sampleLines(tenant, rule, labels, from, now, SAMPLE_LINES));
        } catch (Exception e) {
            log.warn("sample lines for alert {} of tenant {} failed: {}", rule.name(), tenant, e.toString());
            return "";
        }
    }

    private static String phase(AlertState s) {
        String p = "inactive";
        for (AlertState.Alert a : s.active()) {
            if (a.phase == AlertState.Phase.FIRING) {
                return "firing";
            }
            p = "pending";
        }
        return p;
    }

    private AlertSender.Outgoing outgoing(RuleGroups.Rule rule, AlertState.Alert a, Instant endsAt, Instant now) {
        ObjectNode labels = JsonNodeFactory.instance.objectNode();
        a.labels.forEach(labels::put);
        ObjectNode annotations = JsonNodeFactory.instance.objectNode();
        rule.annotations().forEach((k, v) -> annotations.put(k, render(v, a)));
        return new AlertSender.Outgoing(
                labels, annotations, a.activeAt.toString(), endsAt.toString(), generatorUrl(rule, a, now));
    }

    /** {@code {{ $value }}} and {{ $labels.name }} in an annotation. */
    static String render(String template, AlertState.Alert a) {
        Matcher m = TEMPLATE.matcher(template);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String v = m.group(2) != null
                    ? a.labels.getOrDefault(m.group(2), "")
                    : m.group(1).equals("sample_lines") ? (a.samples == null ? "" : a.samples) : format(a.value);
            m.appendReplacement(b, Matcher.quoteReplacement(v));
        }
        m.appendTail(b);
        return b.toString();
    }

    private static String format(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    /** The UI's search for the rule's stream selector and line filters over the alert's time, the lines behind it. */
    private String generatorUrl(RuleGroups.Rule rule, AlertState.Alert a, Instant now) {
        LogQl.RangeAgg r = firstRange(rule.tree());
        StringBuilder q = new StringBuilder();
        long range = 0;
        if (r != null) {
            range = r.rangeMillis();
            for (LogQl.Matcher m : r.query().selector()) {
                if (m.op() == LogQl.MatchOp.EQ
                        && List.of("service", "level", "instance_id", "region").contains(m.name())) {
                    q.append(q.length() == 0 ? "" : " AND ")
                            .append(m.name())
                            .append(":\"")
                            .append(escape(m.value()))
                            .append('"');
                }
            }
            for (LogQl.Stage s : r.query().pipeline()) {
                if (s instanceof LogQl.LineFilter f
                        && f.op() == LogQl.LineOp.CONTAINS
                        && f.values().size() == 1) {
                    q.append(q.length() == 0 ? "" : " AND ")
                            .append('"')
                            .append(escape(f.values().get(0)))
                            .append('"');
                }
            }
        }
        String from = a.activeAt.minusMillis(range).toString();
        return alerting.externalUrl() + "/#q=" + enc(q.toString()) + "&from=" + enc(from) + "&to="
                + enc(now.toString());
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static LogQl.RangeAgg firstRange(LogQl.Expr e) {
        if (e instanceof LogQl.RangeAgg r) {
            return r;
        }
        if (e instanceof LogQl.VectorAgg v) {
            return firstRange(v.inner());
        }
        if (e instanceof LogQl.Negate n) {
            return firstRange(n.inner());
        }
        if (e instanceof LogQl.Binary b) {
            LogQl.RangeAgg l = firstRange(b.left());
            return l != null ? l : firstRange(b.right());
        }
        return null;
    }

    /** Every rule's state, last evaluation and last error, sorted. */
    public List<RuleStatus> status() {
        List<RuleStatus> out = new ArrayList<>(status.values());
        out.sort(java.util.Comparator.comparing((RuleStatus s) -> s.tenant() + s.group() + s.name()));
        return out;
    }

    /** The recording rules' series, for {@code /metrics}. */
    public RecordedSeries recorded() {
        return recorded;
    }

    /** Sends that failed (Alertmanager or webhook). */
    public long sendFailures() {
        return sender.failures();
    }

    /** Stops at once (the process is going away): an evaluation in flight is interrupted. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        if (thread != null) {
            thread.shutdownNow();
            try {
                thread.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Stops evaluating without interrupting an evaluation in flight (an interrupted send would be lost while its alert
     * counts as sent): the group being evaluated ends after its current rule and sends what it decided. Waits at most
     * {@link #STOP_WAIT_SECONDS}; past that the thread is interrupted. True when it ended within the wait (its states
     * are then final: {@link #states()} may be handed over). Idempotent.
     */
    public synchronized boolean stop() {
        if (closed) {
            return stoppedCleanly;
        }
        closed = true;
        stopping = true;
        stoppedCleanly = true;
        if (thread != null) {
            thread.shutdown();
            try {
                stoppedCleanly = thread.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stoppedCleanly = false;
            }
            if (!stoppedCleanly) {
                thread.shutdownNow();
            }
        }
        return stoppedCleanly;
    }
}
