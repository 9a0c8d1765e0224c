package dev.logpipe.server.standalone;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.store.read.KeptReads;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.IndexerProgress;
import dev.logpipe.query.KeptReadGauges;
import dev.logpipe.query.QueryService;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.server.keys.KeyFile;
import dev.logpipe.server.keys.LiveKeys;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The query service inside the standalone, authenticated by the live key file. The query service takes its tenants
 * (their windows and query slots) at creation, so when the key file gains or loses a tenant a new service is built
 * and swapped in; the old one is closed (its live tails end, clients reconnect). Requests in between are served by
 * one or the other, never by none. Thread-safe; {@link #close} idempotent.
 *
 * <p>The constructor takes what the standalone built for the query service (config and tenant defaults, shards, live
 * keys, progress, clock, failed-auth limits) once at start; no value groups them.
 */
final class QueryMount implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QueryMount.class);

    private final QueryConfig base;
    private final QueryConfig.Tenant defaults;
    private final ShardSource shards;
    private final KeptReads kept;
    private final LiveKeys keys;
    private final IndexerProgress progress;
    private final InstantSource clock;
    private final QueryService.Shared shared;
    private volatile Current current;
    private boolean closed;

    private record Current(Set<String> tenants, QueryService service, PrometheusMeterRegistry registry) {}

    QueryMount(
            QueryConfig base,
            QueryConfig.Tenant defaults,
            ShardSource shards,
            KeptReads kept,
            LiveKeys keys,
            IndexerProgress progress,
            InstantSource clock,
            AuthFailures failures)
            throws IOException {
        this.base = base;
        this.defaults = defaults;
        this.shards = shards;
        this.kept = kept;
        this.keys = keys;
        this.progress = progress;
        this.clock = clock;
        // one audit writer and one failure limit for every service built here: a rebuild neither forgets a failing
        // address nor opens a second writer on the audit log
        this.shared = QueryService.Shared.open(base, clock, failures);
        try {
            this.current = build(keys.current());
        } catch (IOException | RuntimeException e) {
            shared.close();
            throw e;
        }
    }

    private Current build(KeyFile f) throws IOException {
        List<QueryConfig.Tenant> tenants = new ArrayList<>();
        for (KeyFile.Tenant t : f.tenants().values()) {
            // the keys are checked by the authenticator below; the list only carries the tenant's policy
            tenants.add(
                    new QueryConfig.Tenant(t.id(), List.of(), defaults.maxWindow(), defaults.maxConcurrentQueries()));
        }
        QueryConfig c = new QueryConfig(
                base.listen(),
                base.dataDir(),
                base.reopenInterval(),
                tenants,
                base.limits(),
                base.cursorSecretFile(),
                base.audit(),
                base.auth(),
                base.opensearch(),
                base.alerting(),
                Optional.empty(),
                List.of(),
                List.of());
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        KeptReadGauges.register(registry, kept);
        QueryService s = QueryService.create(c, shards, this::authenticate, progress, clock, registry, shared);
        // the alert rules run with the service; a rebuild (tenants changed) starts them afresh: alerts still active
        // are sent again by the new service, ones that resolve meanwhile expire in Alertmanager at their endsAt
        s.startRules();
        return new Current(new TreeSet<>(f.tenants().keySet()), s, registry);
    }

    private Optional<Credential> authenticate(String key) {
        return keys.authenticate(key).filter(k -> !k.admin()).map(k -> new Credential(k.tenant(), k.id()));
    }

    /** Swaps in a service that knows the key file's tenants, if they changed. */
    synchronized void refresh() {
        if (closed) {
            return;
        }
        KeyFile f = keys.current();
        if (current.tenants().equals(new TreeSet<>(f.tenants().keySet()))) {
            return;
        }
        try {
            Current next = build(f);
            Current old = current;
            current = next;
            old.service().close();
            log.info("query service now serves tenants {}", next.tenants());
        } catch (IOException | RuntimeException e) {
            log.error(
                    "cannot rebuild the query service for tenants {}; the old one stays",
                    f.tenants().keySet(),
                    e);
        }
    }

    Handler handler() {
        return new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                return current.service().handle(request, response, callback);
            }
        };
    }

    /** Jetty answered a request itself (see {@link QueryService#failedOutside}). */
    void failedOutside(Request request, int status, String reason, Throwable cause) {
        current.service().failedOutside(request, status, reason, cause);
    }

    /** The rules' admin API of the service serving now (the caller checked the admin key). */
    dev.logpipe.role.http.Answer rulesAdmin(
            String method, String rest, java.util.concurrent.Callable<java.io.InputStream> body, String who) {
        return current.service().rulesAdmin(method, rest, body, who);
    }

    /** The query service's metrics. */
    String scrape() {
        return current.registry().scrape();
    }

    /** The recording rules' series (served behind the admin key). */
    /** SHA-256 hashes of the keys that may read {@link #recordedSeries} and nothing else ({@code admin.scrape_key_sha256}). */
    java.util.Set<String> scrapeKeyHashes() {
        return java.util.Set.copyOf(base.scrapeKeyHashes());
    }

    String recordedSeries() {
        return current.service().recordedSeries();
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            try {
                current.service().close();
            } finally {
                shared.close();
            }
        }
    }
}
