package dev.logpipe.query.internal.rules;

import java.io.IOException;
import java.util.List;

/**
 * Where the rule groups of the admin API are kept: files under the query service's data directory ({@link
 * FileRuleStore}, {@code store: lucene}, the standalone) or documents in the cluster every query process shares
 * ({@link ClusterRuleStore}, {@code store: opensearch}).
 */
interface RuleStore {
    /** Every tenant's stored groups. */
    List<StoredGroup> all() throws IOException;

    /** Writes {@code group} (replacing the tenant's group of that name); once it returns, {@link #all} has it. */
    void put(StoredGroup group) throws IOException;

    /** Deletes the tenant's group {@code name}; false when there was none. */
    boolean delete(String tenant, String name) throws IOException;
}
