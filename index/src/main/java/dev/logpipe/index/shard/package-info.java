/**
 * Shards on disk: a (kind, tenant, UTC day) id, the directory layout, tenant ids as directory names, {@code shard.json}
 * metadata written atomically.
 */
package dev.logpipe.index.shard;
