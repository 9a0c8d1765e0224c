package dev.logpipe.index.store.read;

import dev.logpipe.index.shard.ShardId;
import java.time.Instant;
import java.util.List;

/** One page of hits, newest first, and how many documents matched in all. */
public record SearchPage(List<Hit> hits, long total, After next) {
    public SearchPage {
        hits = List.copyOf(hits);
    }

    /** One matching document: its source exactly as accepted, and its sort key. */
    public record Hit(String source, Instant eventTime, String recordId, ShardId shard) {}

    /** The sort key of the last hit of a page: the next page starts after it. */
    public record After(long eventTimeMillis, String recordId) {}
}
