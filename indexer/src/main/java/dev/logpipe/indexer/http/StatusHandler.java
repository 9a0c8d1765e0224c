package dev.logpipe.indexer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.indexer.stage.PartitionStages;
import dev.logpipe.indexer.stage.StageOffsets;
import java.util.List;
import java.util.function.IntSupplier;

/** {@code GET /api/v1/status}: per-partition stage offsets and ages, and totals (docs/indexer.md#status-api). */
public final class StatusHandler {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final StageOffsets stages;
    private final IntSupplier openShards;

    public StatusHandler(StageOffsets stages, IntSupplier openShards) {
        this.stages = stages;
        this.openShards = openShards;
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
