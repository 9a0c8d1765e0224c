package dev.logpipe.query;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.auth.Authenticator;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.Scope;
import dev.logpipe.query.internal.audit.QueryAudit;
import dev.logpipe.query.internal.loki.LokiEndpoints;
import dev.logpipe.query.internal.loki.LokiTail;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.metrics.QueryMetrics;
import dev.logpipe.query.internal.plan.Cursor;
import dev.logpipe.query.internal.plan.CursorSecret;
import dev.logpipe.query.internal.plan.QueryPlanner;
import dev.logpipe.query.internal.rules.RuleEvaluator;
import dev.logpipe.query.internal.rules.RuleGroups;
import dev.logpipe.query.internal.rules.RuleQueries;
import dev.logpipe.query.internal.rules.RuleSets;
import dev.logpipe.query.internal.rules.RulesAdmin;
import dev.logpipe.query.internal.saved.SavedSearches;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.query.internal.tail.Tails;
import dev.logpipe.role.http.Answer;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The query API (docs/query.md) over a {@link ShardSource}, as a Jetty core {@link Handler} that answers the
 * {@code /api/v1/} query paths and declines everything else, so it can be mounted beside other handlers on one port
 * (the standalone) or served alone ({@link QueryServer}). Every request: authenticate (401),
 * refuse any tenant claim that is not the caller's (403, audited), take one of the tenant's query slots (429), run
 * the endpoint, audit, measure. Blocking: it runs on the server's threads.
 *
 * <p>This class assembles the service and is its public face; the request flow is {@link RequestFlow}, the endpoints
 * {@link Endpoints}, the query slots {@link QuerySlots}, the request's reading {@link QueryRequests} and the rules'
 * admin port {@link AdminRulesPort}.
 *
 * <p>create takes the service's collaborators as the two embedders (QueryProcess, the standalone) build them; it is
 * public API, so its seven parameters stay.
 */
public final class QueryService implements AutoCloseable {
    /**
     * The request line and headers a port serving the query API accepts (Jetty's request header size): the longest
     * {@code q} ({@value Scope#MAX_QUERY_CHARS} characters of up to three UTF-8 bytes,
     * percent-encoded: 36 KiB) with room for the other parameters and the headers. Jetty's default, 8 KiB, answered
     * 414 to a 1,500-character non-ASCII query. Memory: at most this per connection while its head is being read.
     */
    public static final int MAX_REQUEST_HEAD_BYTES = 48 * 1024;

    /** What a 414/431 of a query port says (the error handler's message for them): the caps, in the caller's terms. */
    public static final String REQUEST_HEAD_TOO_LONG = "the request line and headers may take at most "
            + MAX_REQUEST_HEAD_BYTES + " bytes; q may hold at most "
            + Scope.MAX_QUERY_CHARS
            + " characters (up to 36 KiB percent-encoded); send a shorter query";

    private final QueryConfig config;
    private final Shared shared;
    private final boolean ownsShared;
    private final AuthFailures failures;
    private final QueryMetrics metrics;
    private final ThreadPoolExecutor pool;
    private final RuleSets rules;
    private final RulesAdmin rulesAdmin;
    private final Tails tails;
    private final RequestFlow flow;
    private boolean closed;

    /** What {@link #create} was given by its caller. */
    private record Inputs(
            QueryConfig config,
            ShardSource source,
            Authenticator auth,
            IndexerProgress progress,
            InstantSource clock,
            MeterRegistry registry) {}

    private QueryService(Inputs in, byte[] cursorKey, Shared shared, boolean ownsShared, List<RuleGroups> ruleGroups) {
        QueryConfig config = in.config();
        InstantSource clock = in.clock();
        this.config = config;
        this.shared = shared;
        this.ownsShared = ownsShared;
        QueryAudit audit = shared.audit;
        this.failures = shared.failures;
        this.metrics = new QueryMetrics(in.registry());
        QueryConfig.Limits l = config.limits();
        AnswerMemory memory = new AnswerMemory(l.answerMemoryBytes(), l.tenantAnswerMemoryBytes());
        QuerySlots slots = new QuerySlots(l);
        this.pool = new ThreadPoolExecutor(
                l.searchThreads(), l.searchThreads(), 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(4096), r -> {
                    Thread t = new Thread(r, "query-search");
                    t.setDaemon(true);
                    return t;
                });
        ShardSource source = in.source();
        Env env = new Env(
                config,
                source,
                new QueryPlanner(source, l.maxShards(), l.maxDocuments(), l.maxArchiveBytes()),
                new FanOut(source, pool),
                new Cursor.Codec(cursorKey),
                clock,
                metrics,
                in.progress());
        LokiEndpoints loki = new LokiEndpoints(env);
        this.rules = RuleSets.open(
                ruleGroups,
                config.opensearch(),
                config.dataDir(),
                config.alerting(),
                clock,
                new RuleQueries(config, audit, memory, slots::admit, loki));
        this.rulesAdmin = new RulesAdmin(rules, t -> config.tenant(t) != null);
        Endpoints endpoints = new Endpoints(
                env, memory, loki, rules, SavedSearches.open(config.opensearch(), config.dataDir(), clock));
        this.tails = endpoints.tails;
        this.flow = new RequestFlow(config, in.auth(), shared, metrics, slots, endpoints);
        metrics.gauge("logpipe_query.tails.active", "Live tails open now", tails::active);
        metrics.gauge(
                "logpipe_query.answer.memory.bytes",
                "Bytes of records held by answers in flight (limits.answer_memory_bytes)",
                memory::used);
        metrics.gauge("logpipe_query.audit.failures", "Audit lines that could not be written", audit::failures);
        metrics.gauge(
                "logpipe_query.audit.truncated",
                "Audit lines whose text values were cut to max_line_bytes",
                audit::truncated);
        metrics.gauge("logpipe_query.audit.rotations", "Audit log files rotated", audit::rotations);
        metrics.gauge(
                "logpipe_query.audit.rotation.failures",
                "Audit log rotations that failed (appending went on to the same file)",
                audit::rotationFailures);
        metrics.gauge(
                "logpipe_query.audit.suppressed",
                "Audit lines of throttled (auth_failures) refusals left out: one per address per Retry-After",
                audit::suppressed);
    }

    /**
     * What a service may share with the services that replace it (the standalone rebuilds its service when tenants
     * change): the audit log (one writer per file, so rotation counts every line) and the failed-authentication
     * limit (a rebuild must not forgive an address). Closing it closes the audit log.
     */
    public static final class Shared implements AutoCloseable {
        private final QueryAudit audit;
        private final AuthFailures failures;

        private Shared(QueryAudit audit, AuthFailures failures) {
            this.audit = audit;
            this.failures = failures;
        }

        /**
         * Opens the audit log of {@code config}; {@code failures} is counted into but not registered in metrics here.
         *
         * @throws IOException the audit log cannot be opened (named in the message)
         */
        public static Shared open(QueryConfig config, InstantSource clock, AuthFailures failures) throws IOException {
            return new Shared(new QueryAudit(config.audit(), clock), failures);
        }

        QueryAudit audit() {
            return audit;
        }

        AuthFailures failures() {
            return failures;
        }

        @Override
        public void close() throws IOException {
            audit.close();
        }
    }

    /**
     * Builds the service: loads (or creates, atomically) the cursor secret and opens the audit log.
     *
     * @throws IOException the cursor secret is corrupt or the audit log cannot be opened (named in the message)
     */
    public static QueryService create(
            QueryConfig config,
            ShardSource source,
            Authenticator auth,
            IndexerProgress progress,
            InstantSource clock,
            MeterRegistry registry)
            throws IOException {
        byte[] key = CursorSecret.loadOrCreate(config.cursorSecretFile());
        AuthFailures failures = new AuthFailures(config.auth(), System::nanoTime).register(registry);
        Shared shared = Shared.open(config, clock, failures);
        return new QueryService(
                new Inputs(config, source, auth, progress, clock, registry),
                key,
                shared,
                true,
                RuleSets.loadFiles(config));
    }

    /**
     * As {@link #create(QueryConfig, ShardSource, Authenticator, IndexerProgress, InstantSource, MeterRegistry)}
     * with an audit log and a failed-authentication limit owned by the caller (closing the service leaves them open).
     */
    public static QueryService create(
            QueryConfig config,
            ShardSource source,
            Authenticator auth,
            IndexerProgress progress,
            InstantSource clock,
            MeterRegistry registry,
            Shared shared)
            throws IOException {
        byte[] key = CursorSecret.loadOrCreate(config.cursorSecretFile());
        return new QueryService(
                new Inputs(config, source, auth, progress, clock, registry),
                key,
                shared,
                false,
                RuleSets.loadFiles(config));
    }

    /**
     * Starts evaluating the alert and recording rules on their schedule, those of the rule files and those stored
     * through the admin API; {@link #close()} stops them. Idempotent.
     */
    public void startRules() {
        rules.start();
    }

    /** The rules' admin API behind {@code admin.api_key_sha256}, for the query port. */
    AdminRulesPort adminRulesPort() {
        return new AdminRulesPort(this, config, failures);
    }

    /** The path of the rules' admin API. */
    public static final String ADMIN_RULES = AdminRulesPort.PATH;

    /** The path of the recording rules' series (behind the admin key). */
    public static final String RECORDED_SERIES = AdminRulesPort.RECORDED_PATH;

    /**
     * {@code /api/v1/admin/rules...} for a caller the caller of this method has checked is an admin ({@code who}: the
     * admin key's id, for the log); {@code rest} is the decoded path after {@code /api/v1/admin/rules}.
     */
    public Answer rulesAdmin(
            String method, String rest, java.util.concurrent.Callable<java.io.InputStream> body, String who) {
        return rulesAdmin.handle(method, rest, body, who);
    }

    /**
     * The recording rules' series in Prometheus text format (empty when there are none), served on {@link
     * #RECORDED_SERIES} behind the admin key.
     */
    public String recordedSeries() {
        return rules.recorded();
    }

    /** The alert rules' states (empty when there are none). */
    public List<RuleEvaluator.RuleStatus> ruleStatus() {
        return rules.status();
    }

    /**
     * Readies {@code server} (before it starts) for what the query paths need of it beyond plain HTTP: websocket
     * upgrades, for Loki's tail.
     */
    public static void prepare(org.eclipse.jetty.server.Server server) {
        LokiTail.enableOn(server);
    }

    /** A handler answering the query paths and declining (returning false for) every other one. */
    public Handler handler() {
        return new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                return QueryService.this.handle(request, response, callback);
            }
        };
    }

    /**
     * True when the request was one of the query paths and has been answered. Every such request is audited exactly
     * once: answered, refused, failed, or escaping as an {@link Error} (out of memory) to the container.
     */
    public boolean handle(Request request, Response response, Callback callback) {
        return flow.handle(request, response, callback);
    }

    /**
     * A request to a query path that Jetty answered itself (through {@link dev.logpipe.role.http.JsonErrorHandler}): refused before it
     * reached {@link #handle} (a malformed path, a parameter Jetty could not decode) or failed by throwing out of it
     * (an {@link Error}). The one place every such failure passes; counted as a request of its endpoint. Anything else
     * is not the query API's and left to the error handler's own count: a request too broken to parse ({@code
     * request} null) and every path that is not a query path (the standalone's ingest, admin and UI).
     */
    public void failedOutside(Request request, int status, String reason, Throwable cause) {
        flow.failedOutside(request, status, reason, cause);
    }

    /** True for the paths this service answers: the one definition of the query API's paths. */
    public static boolean isQueryPath(String path) {
        return QueryRequests.endpoint(path) != null;
    }

    public QueryMetrics metrics() {
        return metrics;
    }

    /** Ends live tails, stops the search pool, closes the audit log unless it is shared. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        rules.close();
        tails.close();
        pool.shutdownNow();
        if (ownsShared) {
            shared.close();
        }
    }
}
