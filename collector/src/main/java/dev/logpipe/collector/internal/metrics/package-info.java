/** The collector's Prometheus meters, prefix {@code logpipe_collector_}. */
package dev.logpipe.collector.internal.metrics;
