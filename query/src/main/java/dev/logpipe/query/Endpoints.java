package dev.logpipe.query;

import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.query.internal.api.AggregateEndpoints;
import dev.logpipe.query.internal.api.Bounds;
import dev.logpipe.query.internal.api.Call;
import dev.logpipe.query.internal.api.ContextEndpoint;
import dev.logpipe.query.internal.api.Env;
import dev.logpipe.query.internal.api.ExportEndpoint;
import dev.logpipe.query.internal.api.SearchEndpoint;
import dev.logpipe.query.internal.api.StatusEndpoint;
import dev.logpipe.query.internal.loki.LokiEndpoints;
import dev.logpipe.query.internal.loki.LokiTail;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.rules.RuleSets;
import dev.logpipe.query.internal.saved.SavedSearches;
import dev.logpipe.query.internal.tail.Tails;
import dev.logpipe.role.http.Answer;
import java.io.IOException;

/**
 * The query API's endpoints over one {@link Env}, built once by {@link QueryService}, and which of them answers an
 * endpoint name that runs under a query slot ({@link #run}). The live tails, the export and the saved searches answer
 * in their own ways ({@link RequestFlow}).
 */
final class Endpoints {
    final SearchEndpoint search;
    final SearchEndpoint deadLetters;
    final AggregateEndpoints aggregates;
    final ContextEndpoint context;
    final StatusEndpoint status;
    final LokiEndpoints loki;
    final RuleSets rules;
    final Tails tails;
    final LokiTail lokiTail;
    final ExportEndpoint exports;
    final SavedSearches saved;
    /** The answers' memory in flight, which the requests and the live tails lease from. */
    final AnswerMemory memory;

    /** {@code loki} and {@code rules} come built: the rules' queries run through the same Loki endpoints. */
    Endpoints(Env env, AnswerMemory memory, LokiEndpoints loki, RuleSets rules, SavedSearches saved) {
        this.search = new SearchEndpoint(env, ShardKind.RECORDS);
        this.deadLetters = new SearchEndpoint(env, ShardKind.DEAD_LETTERS);
        this.aggregates = new AggregateEndpoints(env);
        this.context = new ContextEndpoint(env);
        this.status = new StatusEndpoint(env);
        this.loki = loki;
        this.rules = rules;
        this.tails = new Tails(env, memory);
        this.lokiTail = new LokiTail(env, tails);
        this.exports = new ExportEndpoint(env);
        this.saved = saved;
        this.memory = memory;
    }

    /** The answer of an endpoint that runs under a query slot, within {@code bounds}. */
    Answer run(String endpoint, Call call, Bounds bounds) throws IOException {
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
}
