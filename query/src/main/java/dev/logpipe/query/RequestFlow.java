package dev.logpipe.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.auth.Credentials;
import dev.logpipe.query.auth.Authenticator;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.admission.FairGate;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.ExportEndpoint;
import dev.logpipe.query.internal.audit.QueryAudit;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.metrics.QueryMetrics;
import dev.logpipe.query.internal.saved.SavedSearches;
import dev.logpipe.role.http.Answer;
import java.time.Duration;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request to a query path, from arrival to the answer's last byte: authenticate (401), refuse any tenant claim
 * that is not the caller's (403, audited), take one of the tenant's query slots (429), run the endpoint, audit,
 * measure. The audit line, the answer-memory lease and the query slot are taken and given back across it, export and
 * refusals included. Thread-safe; blocking: it runs on the server's threads.
 */
final class RequestFlow {
    private static final Logger log = LoggerFactory.getLogger(QueryService.class); // its name before the split
    private static final long HOUR_NANOS = 3_600_000_000_000L;

    private final QueryConfig config;
    private final Authenticator auth;
    private final QueryAudit audit;
    private final AuthFailures failures;
    private final QueryMetrics metrics;
    private final AnswerMemory memory;
    private final QuerySlots slots;
    private final Endpoints endpoints;

    RequestFlow(
            QueryConfig config,
            Authenticator auth,
            QueryService.Shared shared,
            QueryMetrics metrics,
            QuerySlots slots,
            Endpoints endpoints) {
        this.config = config;
        this.auth = auth;
        this.audit = shared.audit();
        this.failures = shared.failures();
        this.metrics = metrics;
        this.memory = endpoints.memory;
        this.slots = slots;
        this.endpoints = endpoints;
    }

    /**
     * A request to a query path as it arrived: its path and endpoint, its audit line, when it arrived and its
     * deadline (both {@link System#nanoTime()}).
     */
    private record Arrival(String path, String endpoint, QueryAudit.Line audited, long arrived, long deadline) {}

    /**
     * True when the request was one of the query paths and has been answered. Every such request is audited exactly
     * once: answered, refused, failed, or escaping as an {@link Error} (out of memory) to the container.
     */
    boolean handle(Request request, Response response, Callback callback) {
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
            serve(request, response, callback, new Arrival(path, endpoint, line, arrived, deadline));
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

    private void serve(Request request, Response response, Callback callback, Arrival at) {
        String endpoint = at.endpoint();
        QueryAudit.Line audited = at.audited();
        ObjectNode line = audited.node();
        AnswerMemory.Lease lease = null;
        boolean handedOver = false; // the lease goes with the answer's callback, given back once it is written
        try {
            Answer a;
            try {
                if (!request.getMethod().equals("GET") && !endpoint.equals("saved-searches")) {
                    throw new Refusal(405, "method_not_allowed", "only GET is served here");
                }
                Params params = QueryRequests.params(request);
                Credential cred = authenticate(request);
                lease = memory.lease(cred.tenant());
                line.put("tenant_id", cred.tenant());
                line.put("credential_id", cred.credentialId());
                QueryRequests.refuseForeignTenant(request, params, cred.tenant());
                QueryConfig.Tenant policy = config.tenant(cred.tenant());
                if (policy == null) {
                    throw new Refusal(401, "unauthenticated", "the key's tenant is not configured here");
                }
                Call call = new Call(endpoint, cred, policy, params, QueryRequests.pathRest(at.path(), endpoint), line);
                if (endpoint.equals("tail")) {
                    endpoints.tails.handle(call, request, response, callback, audited::write);
                    return; // the tail answers itself; it was audited when it started (its lease is unused)
                }
                if (endpoint.equals("export")) {
                    export(call, response, callback, lease, at);
                    return; // streamed and audited; a refusal before the first byte is answered below
                }
                if (endpoint.equals("loki_tail")) {
                    endpoints.lokiTail.handle(call, request, response, callback, audited::write);
                    return; // upgraded to a websocket, audited when it started (refusals are answered below)
                }
                if (endpoint.equals("saved-searches")) { // the tenant's own small documents: no query slot
                    a = endpoints.saved.handle(
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
                    try (FairGate.Permit admitted = slots.admit(policy, at.deadline())) {
                        a = endpoints.run(endpoint, call, new Bounds(at.deadline(), lease));
                    }
                }
            } catch (Refusal r) {
                a = r.answer();
                metrics.refused(r.reason());
                line.put("outcome", "refused");
                line.put("reason", r.reason());
            } catch (IllegalArgumentException e) { // an engine refused the query at search time (InvalidQuery, ...)
                a = new Refusal(400, "bad_query", "q: " + e.getMessage()).answer();
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
            line.put("duration_ms", (System.nanoTime() - at.arrived()) / 1_000_000);
            if (a.status() == 429 && "auth_failures".equals(line.path("reason").asText())) {
                audited.writeSampled(Duration.ofSeconds(retryAfter(a)));
            } else {
                audited.write();
            }
            metrics.request(endpoint, a.status(), System.nanoTime() - at.arrived());
            a.write(response, release(callback, lease));
            handedOver = true; // closing twice is harmless: a write that threw may have failed the callback too
        } finally {
            if (!handedOver && lease != null) { // an Error, or a failure auditing or counting: nothing will write it
                lease.close();
            }
        }
    }

    /**
     * Streams an export under one of the tenant's query slots. A refusal before the first byte is thrown (answered
     * as every refusal); a failure after it cuts the response (its last chunk never comes) and is audited.
     */
    private void export(Call call, Response response, Callback callback, AnswerMemory.Lease lease, Arrival at)
            throws Exception {
        QueryAudit.Line audited = at.audited();
        ObjectNode line = audited.node();
        int status = 200;
        try (FairGate.Permit admitted = slots.admit(call.policy(), at.deadline())) {
            ExportEndpoint.Result r = endpoints.exports.handle(call, response, lease);
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
        line.put("duration_ms", (System.nanoTime() - at.arrived()) / 1_000_000);
        audited.write();
        metrics.request("export", status, System.nanoTime() - at.arrived());
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
            throw new Refusal(r.status(), r.reason(), r.getMessage(), null, r.retryAfterSeconds());
        }
    }

    /** As {@link QueryService#failedOutside}. */
    void failedOutside(Request request, int status, String reason, Throwable cause) {
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
}
