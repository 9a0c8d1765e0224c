/**
 * The consume loop and its threads: subscribe, poll, decode, route to shards, write, refresh, commit, with
 * backpressure, rebalances and recovery from store failures.
 */
package dev.logpipe.indexer.internal.consume;
