package dev.logpipe.collector.internal.ingest;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.record.LogRecord;

/**
 * The composite partition key (docs/collector.md): a service's records spread over {@code shards} keys by a
 * hash of the instance, so one hot service fills several partitions instead of one; a high-volume tenant
 * ({@code dedicated_shards > 0}) gets keys of its own. Records of one instance share a key, so they stay in order.
 */
final class PartitionKeys {
    private final int sharedShards;

    PartitionKeys(int sharedShards) {
        this.sharedShards = sharedShards;
    }

    String keyOf(CollectorConfig.Tenant tenant, LogRecord r) {
        String service = r.service() == null ? "-" : r.service();
        String instance = r.instanceId() == null ? "-" : r.instanceId();
        if (tenant.dedicatedShards() > 0) {
            return tenant.id() + ":" + service + ":" + Math.floorMod(instance.hashCode(), tenant.dedicatedShards());
        }
        return service + ":" + Math.floorMod((service + '\u0000' + instance).hashCode(), sharedShards);
    }
}
