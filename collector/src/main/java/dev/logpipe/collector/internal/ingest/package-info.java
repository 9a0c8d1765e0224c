/**
 * The ingest pipeline every route shares: authenticate, cap and decode the body, split lines, validate, redact,
 * partition and hand records and dead letters to the outlet.
 */
package dev.logpipe.collector.internal.ingest;
