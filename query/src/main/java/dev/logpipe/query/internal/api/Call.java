package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.query.auth.Credential;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.http.Params;

/**
 * One authenticated request: the credential's tenant (the only scope), its policy, the parameters, and the audit
 * line the endpoint adds its query, range, shards and hits to.
 */
public record Call(
        String endpoint,
        Credential credential,
        QueryConfig.Tenant policy,
        Params params,
        String pathRest,
        ObjectNode audit) {
    public String tenant() {
        return credential.tenant();
    }
}
