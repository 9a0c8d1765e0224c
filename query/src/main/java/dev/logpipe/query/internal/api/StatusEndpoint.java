package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.archive.tier.TierStatus;
import dev.logpipe.archive.tier.TieredShardSource;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.IndexerProgress;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code GET /api/v1/status}: how fresh the caller's tenant's index is: the newest {@code observed_time} searchable
 * (read from the newest shards' points, no document loaded) and its age; plus the indexer's lag when the service
 * runs beside it ({@link IndexerProgress}). The web UI shows "indexed up to N s ago" from {@code newest_age_seconds}.
 */
public final class StatusEndpoint {
    private final Env env;

    public StatusEndpoint(Env env) {
        this.env = env;
    }

    public Answer handle(Call call) throws IOException {
        List<ShardId> shards = env.source().shards(ShardKind.RECORDS, call.tenant());
        long newest = Long.MIN_VALUE;
        int looked = 0;
        for (int i = shards.size() - 1; i >= 0 && looked < 3; i--, looked++) {
            Optional<ShardSearcher> s = env.source().open(shards.get(i));
            if (s.isEmpty()) {
                continue;
            }
            try (ShardSearcher searcher = s.get()) {
                OptionalLong t = searcher.maxTime(Fields.OBSERVED_TIME);
                if (t.isPresent()) {
                    newest = Math.max(newest, t.getAsLong());
                }
            }
        }
        ObjectNode root = Answer.JSON_NODES.objectNode();
        root.put("tenant_id", call.tenant());
        root.put("shards", shards.size());
        if (newest == Long.MIN_VALUE) {
            root.putNull("newest_observed_time");
            root.putNull("newest_age_seconds");
        } else {
            root.put("newest_observed_time", Instant.ofEpochMilli(newest).toString());
            root.put("newest_age_seconds", Math.max(0, env.clock().millis() - newest) / 1000.0);
        }
        if (env.source() instanceof TieredShardSource tiered) {
            tiers(root.putObject("tiers"), tiered.status(call.tenant()));
        }
        Optional<IndexerProgress.Snapshot> p = env.progress().snapshot();
        root.put("source", p.isPresent() ? "indexer" : "committed_shards");
        if (p.isPresent()) {
            ObjectNode i = root.putObject("indexer");
            if (p.get().lagSeconds() == null) {
                i.putNull("lag_seconds");
            } else {
                i.put("lag_seconds", p.get().lagSeconds());
            }
            ObjectNode stages = i.putObject("stage_age_seconds");
            for (Map.Entry<String, Double> e : p.get().stageAgeSeconds().entrySet()) {
                stages.put(e.getKey(), e.getValue());
            }
        }
        return Answer.ok(root.toString());
    }

    /** Days per tier (docs/archive.md#retention-legal-holds-status): the ARCHIVED stage, per tenant. */
    private static void tiers(ObjectNode t, TierStatus s) {
        t.putObject("hot").put("days", s.hotDays()).put("records", s.hotDocs());
        ObjectNode a = t.putObject("archived")
                .put("days", s.archivedDays())
                .put("records", s.archivedRecords())
                .put("bytes", s.archiveBytes())
                .put("source_bytes", s.sourceBytes());
        if (s.oldestArchivedDay() == null) {
            a.putNull("oldest_day");
            a.putNull("newest_day");
        } else {
            a.put("oldest_day", s.oldestArchivedDay().toString());
            a.put("newest_day", s.newestArchivedDay().toString());
        }
    }
}
