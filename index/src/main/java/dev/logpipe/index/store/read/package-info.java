/**
 * The read side of the index seam: shard sources and searchers, the queries and hits they exchange, and the merge key
 * (event time, record id).
 */
package dev.logpipe.index.store.read;
