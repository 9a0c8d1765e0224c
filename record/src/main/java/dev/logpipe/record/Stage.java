package dev.logpipe.record;

/** The lifecycle stages a record passes through (docs/architecture.md); every acknowledgement names one (invariant I2). */
public enum Stage {
    GENERATED,
    BUFFERED,
    FLUSHED_TO_AGENT,
    DISK_SPOOL,
    ACCEPTED_BY_INGEST,
    DURABLE_IN_BROKER,
    READ_BY_INDEXER,
    INDEXED,
    QUERYABLE,
    ARCHIVED,
    DELETED
}
