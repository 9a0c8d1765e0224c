package dev.logpipe.query.internal.api;

import dev.logpipe.index.store.read.ShardSource;
import dev.logpipe.query.IndexerProgress;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.internal.metrics.QueryMetrics;
import dev.logpipe.query.internal.plan.Cursor;
import dev.logpipe.query.internal.plan.QueryPlanner;
import dev.logpipe.query.internal.search.FanOut;
import java.time.InstantSource;

/** What every endpoint works with; built once by {@link dev.logpipe.query.QueryService}. */
public record Env(
        QueryConfig config,
        ShardSource source,
        QueryPlanner planner,
        FanOut fanOut,
        Cursor.Codec cursors,
        InstantSource clock,
        QueryMetrics metrics,
        IndexerProgress progress) {}
