package dev.logpipe.index.store.read;

import dev.logpipe.index.shard.ShardId;
import java.time.Instant;

/** One matching document: its source exactly as accepted, its sort key, and the shard it came from. */
public record Hit(String source, Instant eventTime, String recordId, ShardId shard) {}
