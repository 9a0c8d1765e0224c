package dev.logpipe.query.internal.rules;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.config.ConfigException;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every rule the query service evaluates: the groups of the rule files in its config and the groups kept through the
 * admin API ({@link RuleStore}), run by one {@link RuleEvaluator} that is rebuilt when the stored groups change
 * (through this process's admin API at once; through another process sharing the store within {@link
 * #RELOAD_SECONDS}). A rebuild carries the alert states of the rules that remain over (a pending alert keeps its
 * {@code for} clock, a firing one is not announced again) and resolves the firing alerts of rules that went; recorded
 * series are written again at their rule's next evaluation. Readers ({@code /metrics}, the status) never wait for a
 * rebuild or the store: they read the evaluator running now. Bounded: {@link #MAX_GROUPS_PER_TENANT} stored groups a
 * tenant, {@link #MAX_GROUPS} in all. Thread-safe.
 */
public final class RuleSets implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RuleSets.class);
    static final long RELOAD_SECONDS = 30;
    public static final int MAX_GROUPS_PER_TENANT = 50;
    public static final int MAX_GROUPS = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<RuleGroups> fromFiles;
    private final RuleStore store;
    private final QueryConfig.Alerting alerting;
    private final InstantSource clock;
    private final RuleEvaluator.Queries queries;
    private final AlertSender sender;
    /** Held while the stored groups are changed or the evaluator rebuilt (never by readers). */
    private final Object changing = new Object();

    private volatile RuleEvaluator current;
    private volatile Map<String, String> storedErrors = Map.of();
    private List<StoredGroup> loaded = List.of();
    private ScheduledExecutorService watcher;
    private boolean started;
    private boolean closed;

    RuleSets(
            List<RuleGroups> fromFiles,
            RuleStore store,
            QueryConfig.Alerting alerting,
            InstantSource clock,
            RuleEvaluator.Queries queries) {
        this.fromFiles = List.copyOf(fromFiles);
        this.store = store;
        this.alerting = alerting;
        this.clock = clock;
        this.queries = queries;
        this.sender = new AlertSender(alerting.alertmanager(), alerting.webhook());
    }

    /** The stored groups kept in the cluster with {@code store: opensearch}, else under {@code dataDir/rules}. */
    public static RuleSets open(
            List<RuleGroups> fromFiles,
            Optional<OpenSearchSettings> opensearch,
            Path dataDir,
            QueryConfig.Alerting alerting,
            InstantSource clock,
            RuleEvaluator.Queries queries) {
        RuleStore store = opensearch
                .<RuleStore>map(ClusterRuleStore::new)
                .orElseGet(() -> new FileRuleStore(dataDir.resolve("rules")));
        return new RuleSets(fromFiles, store, alerting, clock, queries);
    }

    /**
     * Starts evaluating the file groups and the stored ones, and the watcher that picks up groups another process
     * stored. A store that cannot be read now is logged and tried again by the watcher. Idempotent.
     */
    public void start() {
        synchronized (changing) {
            if (started || closed) {
                return;
            }
            started = true;
            List<StoredGroup> groups = List.of();
            try {
                groups = store.all();
            } catch (IOException e) {
                log.warn(
                        "stored rule groups cannot be read ({}); running the rule files' groups, trying again every {} s",
                        e.getMessage(),
                        RELOAD_SECONDS);
            }
            rebuild(groups);
            watcher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "query-rules-reload");
                t.setDaemon(true);
                return t;
            });
            watcher.scheduleWithFixedDelay(this::reloadQuietly, RELOAD_SECONDS, RELOAD_SECONDS, TimeUnit.SECONDS);
        }
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (IOException | RuntimeException e) {
            log.warn("stored rule groups cannot be read: {}; the rules running now keep running", e.toString());
        }
    }

    /** Reads the stored groups again and rebuilds the evaluator when they changed. */
    void reload() throws IOException {
        synchronized (changing) {
            if (!started || closed) {
                return;
            }
            List<StoredGroup> all = store.all();
            if (!new HashSet<>(all).equals(new HashSet<>(loaded))) {
                rebuild(all);
            }
        }
    }

    /** Runs the file groups and {@code groups} from now on; {@link #loaded} is {@code groups} once it did. */
    private void rebuild(List<StoredGroup> groups) {
        Map<String, List<RuleGroups.Group>> byTenant = new LinkedHashMap<>();
        for (RuleGroups f : fromFiles) {
            byTenant.computeIfAbsent(f.tenant(), t -> new ArrayList<>()).addAll(f.groups());
        }
        Map<String, String> errors = new LinkedHashMap<>();
        for (StoredGroup g : groups) {
            try {
                byTenant.computeIfAbsent(g.tenant(), t -> new ArrayList<>())
                        .add(RuleGroups.parseGroup(g.yaml(), "stored group " + g.name()));
            } catch (ConfigException e) { // stored valid; a later version reads it otherwise
                errors.put(g.tenant() + "/" + g.name(), e.getMessage());
                log.error(
                        "stored rule group {} of tenant {} is not evaluated: {}; replace or delete it through the "
                                + "admin API",
                        g.name(),
                        g.tenant(),
                        e.getMessage());
            }
        }
        storedErrors = Map.copyOf(errors);
        List<RuleGroups> all = new ArrayList<>();
        byTenant.forEach((tenant, ofTenant) -> all.add(new RuleGroups(tenant, ofTenant)));
        RuleEvaluator old = current;
        Map<String, AlertState> carried = Map.of();
        if (old != null) {
            if (old.stop()) { // the evaluation in flight ended: its states are final, and handed over
                try {
                    old.resolveAllExcept(RuleEvaluator.alertingKeys(all));
                } catch (RuntimeException e) {
                    log.warn("resolving the alerts of removed rules failed: {}", e.toString());
                }
                carried = old.states();
            } else {
                log.warn(
                        "an evaluation did not end within {} s; the rules start afresh (active alerts are sent "
                                + "again)",
                        RuleEvaluator.STOP_WAIT_SECONDS);
            }
        }
        RuleEvaluator next = all.isEmpty() ? null : new RuleEvaluator(all, alerting, clock, queries, sender, carried);
        if (next != null) {
            next.start();
        }
        current = next;
        loaded = groups;
    }

    /** What storing a group came to. */
    enum Stored {
        NEW,
        REPLACED,
        TENANT_FULL,
        ALL_FULL
    }

    /**
     * Stores a group (validated by the caller) within the bounds and starts evaluating it. Once stored, a failure to
     * read the store back is logged: the watcher picks the group up.
     */
    Stored put(StoredGroup group) throws IOException {
        synchronized (changing) {
            List<StoredGroup> all = store.all();
            boolean replacing = all.stream()
                    .anyMatch(s -> s.tenant().equals(group.tenant()) && s.name().equals(group.name()));
            if (!replacing) {
                if (all.stream().filter(s -> s.tenant().equals(group.tenant())).count() >= MAX_GROUPS_PER_TENANT) {
                    return Stored.TENANT_FULL;
                }
                if (all.size() >= MAX_GROUPS) {
                    return Stored.ALL_FULL;
                }
            }
            store.put(group);
            reloadQuietly();
            return replacing ? Stored.REPLACED : Stored.NEW;
        }
    }

    /** Deletes a stored group; false when there was none. */
    boolean delete(String tenant, String name) throws IOException {
        synchronized (changing) {
            boolean deleted = store.delete(tenant, name);
            reloadQuietly();
            return deleted;
        }
    }

    /** The stored groups, read from the store now. */
    List<StoredGroup> stored() throws IOException {
        return store.all();
    }

    /** The groups of the rule files. */
    List<RuleGroups> fromFiles() {
        return fromFiles;
    }

    /** Whether any rule runs (the status answer lists rules then). */
    public boolean any() {
        return current != null;
    }

    public List<RuleEvaluator.RuleStatus> status() {
        RuleEvaluator c = current;
        return c == null ? List.of() : c.status();
    }

    /** The recording rules' series in Prometheus text format (empty when there are none). */
    public String recorded() {
        RuleEvaluator c = current;
        return c == null ? "" : c.recorded().render();
    }

    /** Why a stored group is not evaluated (it no longer reads), by {@code tenant/name}. */
    Map<String, String> storedErrors() {
        return storedErrors;
    }

    QueryConfig.Alerting alerting() {
        return alerting;
    }

    /** The tenants' alert rules from their files (docs/loki.md#alert-rules); a bad file names itself and the key. */
    public static List<RuleGroups> loadFiles(QueryConfig config) throws IOException {
        List<RuleGroups> out = new java.util.ArrayList<>();
        QueryConfig.Alerting a = config.alerting();
        for (QueryConfig.RuleFile f : a.ruleFiles()) {
            RuleGroups groups;
            try {
                groups = RuleGroups.load(f.tenant(), f.file());
            } catch (ConfigException e) {
                throw new IOException("alerting.rules: " + e.getMessage(), e);
            }
            if (groups.hasAlertingRules()
                    && a.alertmanager().isEmpty()
                    && a.webhook().isEmpty()) {
                throw new IOException("alerting.rules: " + f.file() + " has alerting rules, which need "
                        + "alerting.alertmanager_url or alerting.webhook_url to send their alerts to");
            }
            out.add(groups);
        }
        return out;
    }

    /** The status answer with the caller's alert rules (state, last evaluation, last error) when there are rules. */
    public Answer withStatus(Answer a, String tenant) throws IOException {
        if (current == null || a.status() != 200) {
            return a;
        }
        ObjectNode o = (ObjectNode) JSON.readTree(a.body());
        com.fasterxml.jackson.databind.node.ArrayNode list = o.putArray("rules");
        for (RuleEvaluator.RuleStatus r : status()) {
            if (r.tenant().equals(tenant)) {
                ObjectNode n = list.addObject();
                n.put("group", r.group());
                n.put(r.recording() ? "record" : "alert", r.name());
                n.put("state", r.state());
                n.put("active", r.active());
                n.put("last_evaluation", r.lastEvaluation().toString());
                if (r.lastError() != null) {
                    n.put("last_error", r.lastError());
                }
            }
        }
        return new Answer(a.status(), o.toString(), a.headers());
    }

    @Override
    public void close() {
        synchronized (changing) {
            if (closed) {
                return;
            }
            closed = true;
            if (watcher != null) {
                watcher.shutdownNow();
            }
            RuleEvaluator c = current;
            if (c != null) {
                c.close();
            }
        }
    }
}
