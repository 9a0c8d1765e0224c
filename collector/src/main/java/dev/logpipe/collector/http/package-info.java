/**
 * The collector's HTTP port: ingest routes, {@code /healthz}, {@code /readyz}, {@code /metrics}, and the cap on
 * connections per client address.
 */
package dev.logpipe.collector.http;
