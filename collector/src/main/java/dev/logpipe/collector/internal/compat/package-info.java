/**
 * The shippers' wire formats (Elasticsearch {@code _bulk}, OTLP, Loki, syslog) as ingest protocols over the one
 * pipeline, and the shared readers of bodies held whole.
 */
package dev.logpipe.collector.internal.compat;
