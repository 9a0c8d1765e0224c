/**
 * Syslog listeners (TCP, TLS, UDP): RFC 6587 framing, RFC 5424/3164 parsing, batches of messages through the ingest
 * pipeline.
 */
package dev.logpipe.collector.internal.compat.syslog;
