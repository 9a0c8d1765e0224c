package dev.logpipe.query.internal.rules;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.config.ConfigException;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.http.Answer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
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
 * #RELOAD_SECONDS}). A rebuild starts the rules afresh, as a restart does: active alerts are sent again by the new
 * evaluator, recorded series are written again at the next evaluation. Thread-safe.
 */
public final class RuleSets implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RuleSets.class);
    static final long RELOAD_SECONDS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<RuleGroups> fromFiles;
    private final RuleStore store;
    private final QueryConfig.Alerting alerting;
    private final InstantSource clock;
    private final RuleEvaluator.Queries queries;
    private RuleEvaluator current;
    private List<StoredGroup> loaded = List.of();
    private final Map<String, String> storedErrors = new LinkedHashMap<>();
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
    public synchronized void start() {
        if (started || closed) {
            return;
        }
        started = true;
        try {
            loaded = store.all();
        } catch (IOException e) {
            log.warn(
                    "stored rule groups cannot be read ({}); running the rule files' groups, trying again every {} s",
                    e.getMessage(),
                    RELOAD_SECONDS);
        }
        rebuild();
        watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "query-rules-reload");
            t.setDaemon(true);
            return t;
        });
        watcher.scheduleWithFixedDelay(this::reloadQuietly, RELOAD_SECONDS, RELOAD_SECONDS, TimeUnit.SECONDS);
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (IOException | RuntimeException e) {
            log.warn("stored rule groups cannot be read: {}; the rules running now keep running", e.toString());
        }
    }

    /** Reads the stored groups again and rebuilds the evaluator when they changed. */
    synchronized void reload() throws IOException {
        if (!started || closed) {
            return;
        }
        List<StoredGroup> all = store.all();
        if (!sameGroups(all, loaded)) {
            loaded = all;
            rebuild();
        }
    }

    private static boolean sameGroups(List<StoredGroup> a, List<StoredGroup> b) {
        return a.size() == b.size() && new java.util.HashSet<>(a).equals(new java.util.HashSet<>(b));
    }

    private void rebuild() {
        Map<String, List<RuleGroups.Group>> byTenant = new LinkedHashMap<>();
        for (RuleGroups f : fromFiles) {
            byTenant.computeIfAbsent(f.tenant(), t -> new ArrayList<>()).addAll(f.groups());
        }
        storedErrors.clear();
        for (StoredGroup g : loaded) {
            try {
                byTenant.computeIfAbsent(g.tenant(), t -> new ArrayList<>())
                        .add(RuleGroups.parseGroup(g.yaml(), "stored group " + g.name()));
            } catch (ConfigException e) { // stored valid; a later version reads it otherwise
                storedErrors.put(g.tenant() + "/" + g.name(), e.getMessage());
                log.error(
                        "stored rule group {} of tenant {} is not evaluated: {}; replace or delete it through "
                                + "the admin API",
                        g.name(),
                        g.tenant(),
                        e.getMessage());
            }
        }
        List<RuleGroups> all = new ArrayList<>();
        byTenant.forEach((tenant, groups) -> all.add(new RuleGroups(tenant, groups)));
        RuleEvaluator old = current;
        current = all.isEmpty() ? null : new RuleEvaluator(all, alerting, clock, queries);
        if (old != null) {
            old.close();
        }
        if (current != null) {
            current.start();
        }
    }

    /** Stores a group (validated by the caller) and starts evaluating it. */
    synchronized void put(StoredGroup group) throws IOException {
        store.put(group);
        reload();
    }

    /** Deletes a stored group; false when there was none. */
    synchronized boolean delete(String tenant, String name) throws IOException {
        boolean deleted = store.delete(tenant, name);
        reload();
        return deleted;
    }

    /** The stored groups as last read. */
    synchronized List<StoredGroup> stored() throws IOException {
        return store.all();
    }

    /** The groups of the rule files. */
    List<RuleGroups> fromFiles() {
        return fromFiles;
    }

    /** Whether any rule runs or can run (the status answer lists rules then). */
    public synchronized boolean any() {
        return current != null;
    }

    public synchronized List<RuleEvaluator.RuleStatus> status() {
        return current == null ? List.of() : current.status();
    }

    /** The recording rules' series in Prometheus text format (empty when there are none). */
    public synchronized String recorded() {
        return current == null ? "" : current.recorded().render();
    }

    /** Why a stored group is not evaluated (it no longer reads), by {@code tenant/name}. */
    synchronized Map<String, String> storedErrors() {
        return Map.copyOf(storedErrors);
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
        if (!any() || a.status() != 200) {
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
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (watcher != null) {
            watcher.shutdownNow();
        }
        if (current != null) {
            current.close();
        }
    }
}
