package dev.logpipe.query;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.loki.LokiEndpoints;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Fields;

/**
 * What {@link QueryService} reads from a request before it runs anything: which endpoint a path is (the one
 * definition of the query API's paths), the rest of the path, the parameters, and any claim of a tenant that is not
 * the caller's (a 403); and the shape of a refusal for Grafana's Loki data source.
 */
final class QueryRequests {
    private static final ObjectMapper LOKI_JSON = new ObjectMapper();

    private QueryRequests() {}

    /** Parameters and headers a client might use to name a tenant; any value but the caller's own is a 403. */
    static final List<String> TENANT_PARAMS = List.of("tenant", "tenant_id", "tenantId", "org_id");

    static final List<String> TENANT_HEADERS =
            List.of("X-Tenant", "X-Tenant-Id", "X-Tenant-ID", "Tenant", "Tenant-Id", "X-Scope-OrgID", "X-Org-Id");

    /** The endpoint name of a query path, or null when the path is not one of ours. */
    static String endpoint(String path) {
        if (path != null && path.startsWith(LokiEndpoints.PREFIX)) {
            return LokiEndpoints.endpoint(path);
        }
        if (path == null || !path.startsWith("/api/v1/")) {
            return null;
        }
        String rest = path.substring("/api/v1/".length());
        for (String e : List.of("search", "histogram", "dead-letters", "tail", "export", "status", "whoami")) {
            if (rest.equals(e)) {
                return e;
            }
        }
        if (rest.equals("fields")
                || rest.equals("fields/top")
                || (rest.startsWith("fields/") && rest.endsWith("/top") && rest.length() > 11)) {
            return "fields";
        }
        if (rest.startsWith("context/") && rest.length() > 8) {
            return "context";
        }
        if (rest.equals("saved-searches") || rest.startsWith("saved-searches/")) {
            return "saved-searches";
        }
        return null;
    }

    /** What follows the endpoint's name in the path: a field or record id, or a Loki label's {@code /NAME/values}. */
    static String pathRest(String path, String endpoint) {
        if (endpoint.startsWith("loki_")) {
            String rest = path.substring(LokiEndpoints.PREFIX.length());
            return rest.startsWith("label") ? rest.substring("label".length()) : "";
        }
        return path.substring(path.indexOf(endpoint) + endpoint.length());
    }

    /**
     * A refusal as Grafana's Loki data source reads it: the text in {@code message} (beside our {@code error} and
     * {@code reason}) and Loki's {@code status: error}.
     */
    static Answer lokiError(Answer a) {
        try {
            ObjectNode o = (ObjectNode) LOKI_JSON.readTree(a.body());
            o.put("status", "error");
            o.put("message", o.path("error").asText());
            return new Answer(a.status(), o.toString(), a.headers());
        } catch (IOException | ClassCastException e) {
            return a;
        }
    }

    static Params params(Request request) {
        Fields f;
        try {
            f = Request.extractQueryParameters(request, StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            throw Params.bad("the query string is not valid UTF-8 percent-encoding");
        }
        Map<String, List<String>> m = new HashMap<>();
        for (Fields.Field x : f) {
            m.put(x.getName(), x.getValues());
        }
        return new Params(m);
    }

    static void refuseForeignTenant(Request request, Params params, String tenant) {
        for (String name : TENANT_PARAMS) {
            List<String> vs = params.all().get(name);
            if (vs != null) {
                for (String v : vs) {
                    if (!v.equals(tenant)) {
                        throw new Refusal(
                                403, "foreign_tenant", "parameter " + name + " names a tenant this key may not read");
                    }
                }
            }
        }
        for (String name : TENANT_HEADERS) {
            for (String v : request.getHeaders().getValuesList(name)) {
                if (!v.strip().equals(tenant)) {
                    throw new Refusal(
                            403, "foreign_tenant", "header " + name + " names a tenant this key may not read");
                }
            }
        }
    }
}
