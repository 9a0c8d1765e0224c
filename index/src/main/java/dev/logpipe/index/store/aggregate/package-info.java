/** Aggregation answers of a search: time histogram buckets and the value counts of a keyword field. */
package dev.logpipe.index.store.aggregate;
