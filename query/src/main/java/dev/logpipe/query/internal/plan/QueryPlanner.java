package dev.logpipe.query.internal.plan;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.read.ShardSource;
import java.io.IOException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The planner (docs/query.md, "The planner"), steps 2 to 4: clamp the range to the tenant's window, plan the tenant's day shards that overlap
 * it, prune by metadata (time range, label values, cursor position) without opening a shard, then fix the budget
 * (shards, documents, archive bytes to fetch and decompress) before anything is dispatched. The scope (step 1) is the caller's: it passes the tenant
 * resolved from the credential.
 *
 * <p>plan takes the request's seven parts (tenant, kind, range, window cap, parsed query, order, cursor) as its callers,
 * the endpoints, hold them; a request record would only be built to be taken apart here.
 */
public final class QueryPlanner {
    private static final long DAY = 86_400_000L;
    private final ShardSource source;
    private final int maxShards;
    private final long maxDocuments;
    private final long maxArchiveBytes;

    public QueryPlanner(ShardSource source, int maxShards, long maxDocuments) {
        this(source, maxShards, maxDocuments, Long.MAX_VALUE);
    }

    /** @param maxArchiveBytes archive bytes a query may fetch and decompress ({@link ShardSource#archiveBytes}) */
    public QueryPlanner(ShardSource source, int maxShards, long maxDocuments, long maxArchiveBytes) {
        this.source = source;
        this.maxShards = maxShards;
        this.maxDocuments = maxDocuments;
        this.maxArchiveBytes = maxArchiveBytes;
    }

    public Plan plan(
            String tenant,
            ShardKind kind,
            TimeRange requested,
            long maxWindowMillis,
            ParsedQuery query,
            ShardSearcher.Order order,
            After after)
            throws IOException {
        TimeRange range = requested;
        boolean clamped = false;
        if (requested.toMillis() - requested.fromMillis() > maxWindowMillis) {
            range = new TimeRange(requested.toMillis() - maxWindowMillis, requested.toMillis());
            clamped = true;
        }
        Map<String, Set<String>> labels = kind == ShardKind.RECORDS ? query.requiredLabels() : Map.of();
        List<ShardId> candidates = new ArrayList<>();
        List<ShardMetadata> metas = new ArrayList<>();
        int pruned = 0;
        for (ShardId id : source.shards(kind, tenant)) {
            long dayStart = id.day().atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            if (dayStart >= range.toMillis() || dayStart + DAY <= range.fromMillis()) {
                continue; // not planned: outside the range
            }
            Optional<ShardMetadata> m = source.metadata(id);
            if (prunable(m.orElse(null), dayStart, range, labels, order, after)) {
                pruned++;
                continue;
            }
            candidates.add(id);
            metas.add(m.orElse(null));
        }
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            idx.add(i);
        }
        if (order == ShardSearcher.Order.NEWEST_FIRST) {
            Collections.reverse(idx); // shards() is sorted by day
        }
        List<ShardId> searched = new ArrayList<>();
        Map<ShardId, Plan.Span> spans = new HashMap<>();
        List<Plan.Skipped> skipped = new ArrayList<>();
        long docs = 0;
        long archiveBytes = 0;
        ShardQuery probe = ShardQuery.of(tenant, query, range.fromMillis(), range.toMillis());
        for (int i : idx) {
            ShardId id = candidates.get(i);
            long d = metas.get(i) == null ? 0 : metas.get(i).docs();
            long a = 0;
            if (!skipped.isEmpty()) {
                skipped.add(new Plan.Skipped(id, skipped.get(0).reason()));
            } else if (searched.size() >= maxShards) {
                skipped.add(new Plan.Skipped(id, "max_shards"));
            } else if (docs + d > maxDocuments) {
                skipped.add(new Plan.Skipped(id, "max_documents"));
            } else if (maxArchiveBytes != Long.MAX_VALUE
                    && archiveBytes + (a = source.archiveBytes(id, probe)) > maxArchiveBytes) {
                skipped.add(new Plan.Skipped(id, "max_archive_bytes"));
            } else {
                searched.add(id);
                spans.put(id, span(id, metas.get(i), d));
                docs += d;
                archiveBytes += a;
            }
        }
        After resume = null;
        if (!skipped.isEmpty() && !searched.isEmpty()) {
            ShardId last = searched.get(searched.size() - 1);
            long dayStart = last.day().atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            // every record of a later shard in merge order lies beyond this key (day shards are disjoint in time)
            resume = order == ShardSearcher.Order.NEWEST_FIRST
                    ? new After(dayStart - 1, "")
                    : new After(dayStart + DAY - 1, "");
        }
        return new Plan(
                tenant,
                query,
                kind,
                range,
                clamped,
                maxWindowMillis,
                order,
                searched,
                pruned,
                skipped,
                docs,
                resume,
                spans);
    }

    private static Plan.Span span(ShardId id, ShardMetadata m, long docs) {
        if (m != null && m.minEventTime() != null) {
            return new Plan.Span(
                    docs, m.minEventTime().toEpochMilli(), m.maxEventTime().toEpochMilli());
        }
        long dayStart = id.day().atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        return new Plan.Span(docs, dayStart, dayStart + DAY - 1);
    }

    private static boolean prunable(
            ShardMetadata m,
            long dayStart,
            TimeRange range,
            Map<String, Set<String>> labels,
            ShardSearcher.Order order,
            After after) {
        long min = dayStart;
        long max = dayStart + DAY - 1;
        if (m != null) {
            if (m.minEventTime() == null) {
                return true; // no document at the last commit (and the source says the metadata covers what it shows)
            }
            min = m.minEventTime().toEpochMilli();
            max = m.maxEventTime().toEpochMilli();
            for (Map.Entry<String, Set<String>> e : labels.entrySet()) {
                if (m.truncatedLabels().contains(e.getKey())) {
                    continue;
                }
                Set<String> present =
                        m.labels().containsKey(e.getKey()) ? m.labels().get(e.getKey()) : Set.of();
                if (Collections.disjoint(present, e.getValue())) {
                    return true;
                }
            }
        }
        if (max < range.fromMillis() || min >= range.toMillis()) {
            return true;
        }
        if (after != null) {
            // oldest first, after (t, ""): nothing at t sorts after it (ids run descending), so max == t is done too
            return order == ShardSearcher.Order.NEWEST_FIRST
                    ? min > after.eventTimeMillis()
                    : max < after.eventTimeMillis()
                            || (max == after.eventTimeMillis()
                                    && after.recordId().isEmpty());
        }
        return false;
    }
}
