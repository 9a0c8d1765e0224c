/**
 * The plan of a query before any shard is searched: time ranges, day shards pruned by metadata, the budget, and signed
 * page cursors.
 */
package dev.logpipe.query.internal.plan;
