/** Retention of day shards per tenant, legal holds that override it, and the audit log of both. */
package dev.logpipe.indexer.internal.retention;
