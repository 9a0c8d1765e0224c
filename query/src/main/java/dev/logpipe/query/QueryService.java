package dev.logpipe.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.auth.Credentials;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.auth.Authenticator;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.admission.FairGate;
import dev.logpipe.query.internal.api.AggregateEndpoints;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.ContextEndpoint;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.ExportEndpoint;
import dev.logpipe.query.internal.api.Scope;
import dev.logpipe.query.internal.api.SearchEndpoint;
import dev.logpipe.query.internal.api.StatusEndpoint;
import dev.logpipe.query.internal.audit.QueryAudit;
import dev.logpipe.query.internal.http.Answer;
import dev.logpipe.query.internal.http.Params;
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
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The query API (docs/query.md) over a {@link ShardSource}, as a Jetty core {@link Handler} that answers the
 * {@code /api/v1/} query paths and declines everything else, so it can be mounted beside other handlers on one port
 * (the standalone) or served alone ({@link QueryServer}). Every request: authenticate (401),
 * refuse any tenant claim that is not the caller's (403, audited), take one of the tenant's query slots (429), run
 * the endpoint, audit, measure. Blocking: it runs on the server's threads.
 *
 * <p>Longer than 500 lines, for now: the service's assembly and that one request flow (the audit line, the memory
 * lease and the query slot are taken and given back across it, export and refusals included) live together; the
 * endpoints, the request's reading ({@link QueryRequests}) and the rules' admin port are their own classes. Moving the
 * flow into a class of its own is the next split.
 */
public final class QueryService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QueryService.class);
    private static final long HOUR_NANOS = 3_600_000_000_000L;

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
    private final Authenticator auth;
    private final Shared shared;
    private final boolean ownsShared;
    private final QueryAudit audit;
    private final AuthFailures failures;
    private final QueryMetrics metrics;
    private final ThreadPoolExecutor pool;
    private final SearchEndpoint search;
    private final SearchEndpoint deadLetters;
    private final AggregateEndpoints aggregates;
    private final ContextEndpoint context;
    private final StatusEndpoint status;
    private final LokiEndpoints loki;
    private final RuleSets rules;
    private final RulesAdmin rulesAdmin;
    private final Tails tails;
    private final LokiTail lokiTail;
    private final ExportEndpoint exports;
    private final SavedSearches saved;
    private final AnswerMemory memory;
    private final FairGate gate;
    private boolean closed;

    private QueryService(
            QueryConfig config,
            ShardSource source,
            Authenticator auth,
            IndexerProgress progress,
            InstantSource clock,
            MeterRegistry registry,
            byte[] cursorKey,
            Shared shared,
            boolean ownsShared,
            List<RuleGroups> ruleGroups) {
        this.config = config;
        this.auth = auth;
        this.shared = shared;
        this.ownsShared = ownsShared;
        this.audit = shared.audit;
        this.failures = shared.failures;
        this.metrics = new QueryMetrics(registry);
        QueryConfig.Limits l = config.limits();
        this.memory = new AnswerMemory(l.answerMemoryBytes(), l.tenantAnswerMemoryBytes());
        this.gate = new FairGate(l.maxRunningQueries(), l.tenantRunningQueries());
        this.pool = new ThreadPoolExecutor(
                l.searchThreads(), l.searchThreads(), 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(4096), r -> {
                    Thread t = new Thread(r, "query-search");
                    t.setDaemon(true);
                    return t;
                });
        Env env = new Env(
                config,
                source,
                new QueryPlanner(source, l.maxShards(), l.maxDocuments(), l.maxArchiveBytes()),
                new FanOut(source, pool),
                new Cursor.Codec(cursorKey),
                clock,
                metrics,
                progress);
        this.search = new SearchEndpoint(env, ShardKind.RECORDS);
        this.deadLetters = new SearchEndpoint(env, ShardKind.DEAD_LETTERS);
        this.aggregates = new AggregateEndpoints(env);
        this.context = new ContextEndpoint(env);
        this.status = new StatusEndpoint(env);
        this.loki = new LokiEndpoints(env);
        this.rules = RuleSets.open(
                ruleGroups,
                config.opensearch(),
                config.dataDir(),
                config.alerting(),
                clock,
                new RuleQueries(config, audit, memory, this::admit, loki));
        this.rulesAdmin = new RulesAdmin(rules, t -> config.tenant(t) != null);
        this.tails = new Tails(env, memory);
        this.lokiTail = new LokiTail(env, tails);
        this.exports = new ExportEndpoint(env);
        this.saved = SavedSearches.open(config.opensearch(), config.dataDir(), clock);
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
                config, source, auth, progress, clock, registry, key, shared, true, RuleSets.loadFiles(config));
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
                config, source, auth, progress, clock, registry, key, shared, false, RuleSets.loadFiles(config));
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

    /** An admin API answer: status and JSON body. */
    public record AdminAnswer(int status, String body) {}

    /** The path of the rules' admin API. */
    public static final String ADMIN_RULES = AdminRulesPort.PATH;

    /** The path of the recording rules' series (behind the admin key). */
    public static final String RECORDED_SERIES = AdminRulesPort.RECORDED_PATH;

    /**
     * {@code /api/v1/admin/rules...} for a caller the caller of this method has checked is an admin ({@code who}: the
     * admin key's id, for the log); {@code rest} is the decoded path after {@code /api/v1/admin/rules}.
     */
    public AdminAnswer rulesAdmin(
            String method, String rest, java.util.concurrent.Callable<java.io.InputStream> body, String who) {
        RulesAdmin.Answer a = rulesAdmin.handle(method, rest, body, who);
        return new AdminAnswer(a.status(), a.body());
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
     * Streams an export under one of the tenant's query slots. A refusal before the first byte is thrown (answered
     * as every refusal); a failure after it cuts the response (its last chunk never comes) and is audited.
     */
    private void export(
            Call call,
            Response response,
            Callback callback,
            AnswerMemory.Lease lease,
            QueryConfig.Tenant policy,
            long deadline,
            QueryAudit.Line audited,
            long arrived)
            throws Exception {
        ObjectNode line = audited.node();
        int status = 200;
        try (FairGate.Permit admitted = admit(policy, deadline)) {
            ExportEndpoint.Result r = exports.handle(call, response, lease);
            line.put("outcome", "exported");
            line.put("bytes", r.bytes());
            callback.succeeded();
        } catch (Exception e) {
            if (!response.isCommitted()) {
                response.reset(); // nothing was sent: the export's headers go, the refusal or error is answered
                throw e;
            }
            log.warn("export for tenant {} cut after it began: {}", call.tenant(), e.toString());
            line.put("outcome", "export_cut");
            line.put("error", e.toString());
            status = 500;
            callback.failed(e);
        }
        line.put("status", status);
        line.put("duration_ms", (System.nanoTime() - arrived) / 1_000_000);
        audited.write();
        metrics.request("export", status, System.nanoTime() - arrived);
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
        String path = Request.getPathInContext(request);
        String endpoint = QueryRequests.endpoint(path);
        if (endpoint == null) {
            return false;
        }
        long now = System.nanoTime();
        long begin = request.getBeginNanoTime();
        // the deadline and the latency count from the request's arrival: time queued for a server thread is part of
        // the answer's
        long arrived = now - begin >= 0 && now - begin < HOUR_NANOS ? begin : now;
        long deadline = arrived + config.limits().queryTimeout().toNanos();
        QueryAudit.Line line = audit.line(endpoint, Request.getRemoteAddr(request));
        try {
            serve(request, response, callback, path, endpoint, line, arrived, deadline);
        } catch (RuntimeException | Error e) { // escapes to the container's error page: audited all the same
            ObjectNode n = line.node();
            if (!n.has("outcome")) {
                n.put("outcome", "error");
            }
            if (!n.has("status")) {
                n.put("status", 500);
            }
            n.put("error", e.getClass().getSimpleName());
            n.put("duration_ms", (System.nanoTime() - arrived) / 1_000_000);
            line.write();
            throw e;
        }
        return true;
    }

    private void serve(
            Request request,
            Response response,
            Callback callback,
            String path,
            String endpoint,
            QueryAudit.Line audited,
            long arrived,
            long deadline) {
        ObjectNode line = audited.node();
        AnswerMemory.Lease lease = null;
        boolean handedOver = false; // the lease goes with the answer's callback, given back once it is written
        try {
            Answer a;
            try {
                if (!request.getMethod().equals("GET") && !endpoint.equals("saved-searches")) {
                    throw new Answer.Refusal(405, "method_not_allowed", "only GET is served here");
                }
                Params params = QueryRequests.params(request);
                Credential cred = authenticate(request);
                lease = memory.lease(cred.tenant());
                line.put("tenant_id", cred.tenant());
                line.put("credential_id", cred.credentialId());
                QueryRequests.refuseForeignTenant(request, params, cred.tenant());
                QueryConfig.Tenant policy = config.tenant(cred.tenant());
                if (policy == null) {
                    throw new Answer.Refusal(401, "unauthenticated", "the key's tenant is not configured here");
                }
                Call call = new Call(endpoint, cred, policy, params, QueryRequests.pathRest(path, endpoint), line);
                if (endpoint.equals("tail")) {
                    tails.handle(call, request, response, callback, audited::write);
                    return; // the tail answers itself; it was audited when it started (its lease is unused)
                }
                if (endpoint.equals("export")) {
                    export(call, response, callback, lease, policy, deadline, audited, arrived);
                    return; // streamed and audited; a refusal before the first byte is answered below
                }
                if (endpoint.equals("loki_tail")) {
                    lokiTail.handle(call, request, response, callback, audited::write);
                    return; // upgraded to a websocket, audited when it started (refusals are answered below)
                }
                if (endpoint.equals("saved-searches")) { // the tenant's own small documents: no query slot
                    a = saved.handle(
                            request.getMethod(),
                            call.pathRest(),
                            new SavedSearches.Caller(call.tenant(), cred.credentialId(), line),
                            () -> Content.Source.asInputStream(request));
                } else if (endpoint.equals("whoami")) { // the UI's sign-in: which tenant the key is for; no slot needed
                    a = Answer.ok(Answer.JSON_NODES
                            .objectNode()
                            .put("tenant", cred.tenant())
                            .put("key_id", cred.credentialId())
                            .toString());
                } else {
                    try (FairGate.Permit admitted = admit(policy, deadline)) {
                        a = run(endpoint, call, new Bounds(deadline, lease));
                    }
                }
            } catch (Answer.Refusal r) {
                a = r.answer();
                metrics.refused(r.reason());
                line.put("outcome", "refused");
                line.put("reason", r.reason());
            } catch (IllegalArgumentException e) { // an engine refused the query at search time (InvalidQuery, ...)
                a = new Answer.Refusal(400, "bad_query", "q: " + e.getMessage()).answer();
                metrics.refused("bad_query");
                line.put("outcome", "refused");
                line.put("reason", "bad_query");
            } catch (Exception | StackOverflowError e) {
                log.warn("query {} failed: {}", endpoint, e.toString(), e);
                a = Answer.error(500, "internal", "internal error");
                line.put("outcome", "error");
            }
            if (endpoint.startsWith("loki_") && a.status() >= 400) {
                a = QueryRequests.lokiError(a);
            }
            line.put("status", a.status());
            if (!line.has("outcome")) {
                line.put("outcome", "answered");
            }
            line.put("duration_ms", (System.nanoTime() - arrived) / 1_000_000);
            if (a.status() == 429 && "auth_failures".equals(line.path("reason").asText())) {
                audited.writeSampled(Duration.ofSeconds(retryAfter(a)));
            } else {
                audited.write();
            }
            metrics.request(endpoint, a.status(), System.nanoTime() - arrived);
            send(response, release(callback, lease), a);
            handedOver = true; // closing twice is harmless: a write that threw may have failed the callback too
        } finally {
            if (!handedOver && lease != null) { // an Error, or a failure auditing or counting: nothing will write it
                lease.close();
            }
        }
    }

    /**
     * The caller's credential by the one check every API applies ({@link Credentials}); a failure is a 401
     * ({@code unauthenticated}, {@code ambiguous_credentials}) or, once the client address failed too often, a 429
     * ({@code auth_failures}) with the Retry-After of its bucket.
     */
    private Credential authenticate(Request request) {
        try {
            return Credentials.check(
                    failures,
                    request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                    Request.getRemoteAddr(request),
                    auth::authenticate,
                    "no or unknown API key (Authorization: Bearer KEY)");
        } catch (Credentials.Refused r) {
            throw new Answer.Refusal(r.status(), r.reason(), r.getMessage(), null, r.retryAfterSeconds());
        }
    }

    /**
     * A request to a query path that Jetty answered itself (through {@link dev.logpipe.role.http.JsonErrorHandler}): refused before it
     * reached {@link #handle} (a malformed path, a parameter Jetty could not decode) or failed by throwing out of it
     * (an {@link Error}). The one place every such failure passes; counted as a request of its endpoint. Anything else
     * is not the query API's and left to the error handler's own count: a request too broken to parse ({@code
     * request} null) and every path that is not a query path (the standalone's ingest, admin and UI).
     */
    public void failedOutside(Request request, int status, String reason, Throwable cause) {
        String endpoint = request == null ? null : QueryRequests.endpoint(Request.getPathInContext(request));
        if (endpoint == null) {
            return;
        }
        metrics.request(endpoint, status, 0);
        metrics.refused(reason);
        if (cause == null) { // refused before it reached handle, which audits every request it sees itself
            QueryAudit.Line line = audit.line(endpoint, Request.getRemoteAddr(request));
            line.node().put("status", status);
            line.node().put("outcome", "refused");
            line.node().put("reason", reason);
            line.write();
        }
    }

    /**
     * Waits, within the deadline, for one of the {@code limits.max_running_queries} places to run, tenants served in
     * turn and each running at most {@code limits.tenant_running_queries} (more queries at once than the machine has
     * cores for would only share them and finish past their deadlines; one tenant's flood must not hold every place).
     */
    private FairGate.Permit admit(QueryConfig.Tenant policy, long deadline) {
        try {
            return gate.enter(policy.id(), policy.maxConcurrentQueries(), deadline);
        } catch (FairGate.NotAdmitted e) {
            if (e.refusal() == FairGate.Refusal.TENANT_CAP) {
                throw new Answer.Refusal(429, "tenant_concurrency", e.getMessage());
            }
            throw Bounds.timedOut(config.limits().queryTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Bounds.timedOut(config.limits().queryTimeout());
        }
    }

    private Answer run(String endpoint, Call call, Bounds bounds) throws IOException {
        return switch (endpoint) {
            case "search" -> search.handle(call, bounds);
            case "dead-letters" -> deadLetters.handle(call, bounds);
            case "histogram" -> aggregates.histogram(call, bounds);
            case "fields" -> call.pathRest().isEmpty() ? aggregates.fields(call) : aggregates.top(call, bounds);
            case "context" -> context.handle(call, bounds);
            case "status" -> rules.withStatus(status.handle(call), call.tenant());
            default -> {
                if (endpoint.startsWith("loki_")) {
                    yield loki.handle(call, bounds);
                }
                throw new AssertionError(endpoint);
            }
        };
    }

    /** True for the paths this service answers: the one definition of the query API's paths. */
    public static boolean isQueryPath(String path) {
        return QueryRequests.endpoint(path) != null;
    }

    /** An answer's Retry-After in seconds (at least one). */
    private static long retryAfter(Answer a) {
        try {
            return Math.max(1, Long.parseLong(a.headers().getOrDefault("Retry-After", "1")));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** {@code callback}, giving back the answer's memory once it is written (or failed). */
    private static Callback release(Callback callback, AnswerMemory.Lease lease) {
        if (lease == null) {
            return callback;
        }
        return new Callback() {
            @Override
            public void succeeded() {
                lease.close();
                callback.succeeded();
            }

            @Override
            public void failed(Throwable x) {
                lease.close();
                callback.failed(x);
            }

            @Override
            public InvocationType getInvocationType() {
                return callback.getInvocationType();
            }
        };
    }

    static void send(Response response, Callback callback, Answer a) {
        response.setStatus(a.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        a.headers().forEach(response.getHeaders()::put);
        response.write(true, ByteBuffer.wrap(a.body().getBytes(StandardCharsets.UTF_8)), callback);
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
