package dev.logpipe.query.internal.rules;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.admission.FairGate;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.audit.QueryAudit;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.loki.LokiEndpoints;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.plan.TimeRange;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * A rule's evaluation run as a request of its tenant would be: admitted by the service's gate, within
 * {@code limits.query_timeout} and the tenant's answer memory, planned and budgeted by the same endpoints, and
 * audited as endpoint {@code rule} with credential {@code rule:ALERTNAME}. It sees only the rule's tenant.
 */
public final class RuleQueries implements RuleEvaluator.Queries {
    /** The service's admission: a permit to run, or a refusal (429, 503) past the deadline. */
    @FunctionalInterface
    public interface Admission {
        FairGate.Permit admit(QueryConfig.Tenant policy, long deadlineNanos);
    }

    private final QueryConfig config;
    private final QueryAudit audit;
    private final AnswerMemory memory;
    private final Admission admission;
    private final LokiEndpoints loki;

    public RuleQueries(
            QueryConfig config, QueryAudit audit, AnswerMemory memory, Admission admission, LokiEndpoints loki) {
        this.config = config;
        this.audit = audit;
        this.memory = memory;
        this.admission = admission;
        this.loki = loki;
    }

    @Override
    public Map<SortedMap<String, String>, Double> evaluate(String tenant, RuleGroups.Rule rule, Instant at)
            throws IOException {
        return run(tenant, rule, "rule", (call, bounds) -> {
            Map<SortedMap<String, String>, Double> r = loki.evaluate(call, bounds, rule.tree(), at.toEpochMilli());
            call.audit().put("hits", r.size());
            return r;
        });
    }

    @Override
    public List<String> sampleLines(
            String tenant, RuleGroups.Rule rule, Map<String, String> labels, Instant from, Instant to, int n)
            throws IOException {
        return run(tenant, rule, "rule_samples", (call, bounds) -> {
            List<String> lines = loki.sampleLines(
                    call, bounds, rule.tree(), labels, new TimeRange(from.toEpochMilli(), to.toEpochMilli() + 1), n);
            call.audit().put("hits", lines.size());
            return lines;
        });
    }

    private interface Work<T> {
        T run(Call call, Bounds bounds) throws IOException;
    }

    private <T> T run(String tenant, RuleGroups.Rule rule, String endpoint, Work<T> work) throws IOException {
        long arrived = System.nanoTime();
        long deadline = arrived + config.limits().queryTimeout().toNanos();
        QueryAudit.Line audited = audit.line(endpoint, "rules");
        ObjectNode line = audited.node();
        Credential cred = new Credential(tenant, "rule:" + rule.name());
        line.put("tenant_id", tenant);
        line.put("credential_id", cred.credentialId());
        line.put("query", rule.expr());
        try (AnswerMemory.Lease lease = memory.lease(tenant)) {
            QueryConfig.Tenant policy = config.tenant(tenant);
            if (policy == null) {
                throw new Refusal(401, "unauthenticated", "the rule's tenant is not configured here");
            }
            Call call = new Call(endpoint, cred, policy, new Params(Map.of("query", List.of(rule.expr()))), "", line);
            try (FairGate.Permit admitted = admission.admit(policy, deadline)) {
                T result = work.run(call, new Bounds(deadline, lease));
                line.put("outcome", "answered");
                line.put("status", 200);
                return result;
            }
        } catch (Refusal r) {
            line.put("outcome", "refused");
            line.put("status", r.status());
            line.put("reason", r.reason());
            throw new IOException(r.getMessage(), r);
        } catch (IOException | RuntimeException e) {
            line.put("outcome", "error");
            line.put("error", e.getClass().getSimpleName());
            throw e;
        } finally {
            line.put("duration_ms", (System.nanoTime() - arrived) / 1_000_000);
            audited.write();
        }
    }
}
