/** The query service's Prometheus meters. */
package dev.logpipe.query.internal.metrics;
