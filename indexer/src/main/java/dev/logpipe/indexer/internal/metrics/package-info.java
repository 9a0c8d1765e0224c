/** The indexer's Prometheus meters, prefix {@code logpipe_indexer_}. */
package dev.logpipe.indexer.internal.metrics;
