package dev.logpipe.indexer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.indexer.internal.consume.WriteFailures;
import dev.logpipe.indexer.stage.PartitionStages;
import dev.logpipe.indexer.stage.StageOffsets;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * {@code GET /api/v1/status}: per-partition stage offsets and ages, totals, partitions paused after a store failure,
 * and fields not indexed per tenant (docs/indexer.md#status-api).
 */
public final class StatusHandler {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final StageOffsets stages;
    private final IntSupplier openShards;
    private final WriteFailures failures;
    private final Supplier<Map<String, Long>> fieldsNotIndexed;

    public StatusHandler(
            StageOffsets stages,
            IntSupplier openShards,
            WriteFailures failures,
            Supplier<Map<String, Long>> fieldsNotIndexed) {
        this.stages = stages;
        this.openShards = openShards;
        this.failures = failures;
        this.fieldsNotIndexed = fieldsNotIndexed;
    }

    public String json() {
        List<PartitionStages> all = stages.snapshot();
        ObjectNode root = JSON.createObjectNode();
        ObjectNode totals = root.putObject("totals");
        long durable = 0;
        long read = 0;
        long indexed = 0;
        long queryable = 0;
        long committed = 0;
        ObjectNode parts = root.putObject("partitions");
        for (PartitionStages p : all) {
            ObjectNode o = parts.putObject(p.partition());
            stage(o, "durable", p.durable(), p.durableAge());
            stage(o, "read", p.read(), p.readAge());
            stage(o, "indexed", p.indexed(), p.indexedAge());
            stage(o, "queryable", p.queryable(), p.queryableAge());
            stage(o, "committed", p.committed(), p.committedAge());
            durable += p.durable();
            read += p.read();
            indexed += p.indexed();
            queryable += p.queryable();
            committed += p.committed();
        }
        totals.put("durable", durable);
        totals.put("read", read);
        totals.put("indexed", indexed);
        totals.put("queryable", queryable);
        totals.put("committed", committed);
        totals.put("lag_read", durable - read);
        totals.put("lag_queryable", durable - queryable);
        root.put("open_shards", openShards.getAsInt());
        ObjectNode failed = root.putObject("write_failures");
        for (WriteFailures.Paused p : failures.snapshot()) {
            ObjectNode o = failed.putObject(p.partition());
            o.put("shard", p.shard());
            o.put("reason", p.reason());
            o.put("failures", p.failures());
            o.put("since", p.since().toString());
            o.put("retry_at", p.retryAt().toString());
        }
        ObjectNode notIndexed = root.putObject("fields_not_indexed");
        fieldsNotIndexed.get().forEach(notIndexed::put);
        return root.toString();
    }

    private static void stage(ObjectNode o, String name, long offset, Double age) {
        ObjectNode s = o.putObject(name);
        s.put("offset", offset);
        if (age == null) {
            s.putNull("age_seconds");
        } else {
            s.put("age_seconds", age);
        }
    }
}
