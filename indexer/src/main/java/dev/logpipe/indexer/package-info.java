/**
 * The indexer role: {@code Indexer} wires one running indexer (shards verified, store open, consuming, refreshing, HTTP
 * serving).
 */
package dev.logpipe.indexer;
