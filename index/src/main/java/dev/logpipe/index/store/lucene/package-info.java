/**
 * The embedded Lucene engine: the store (write, refresh, commit), its near-real-time and committed read sides, queries,
 * aggregations and per-shard metadata.
 */
package dev.logpipe.index.store.lucene;
