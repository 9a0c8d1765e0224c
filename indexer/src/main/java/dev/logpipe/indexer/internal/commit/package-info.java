/**
 * Index-then-commit: Kafka offsets are committed only after their records are durable in the store, and a store failure
 * names its partitions.
 */
package dev.logpipe.indexer.internal.commit;
