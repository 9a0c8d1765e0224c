/**
 * The schema-v3 log record: {@code LogRecord}, levels, stable record ids, lifecycle stages, the NDJSON codec and its
 * fast paths.
 */
package dev.logpipe.record;
