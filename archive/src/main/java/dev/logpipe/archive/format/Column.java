package dev.logpipe.archive.format;

/** The columns of a block, in the order they are stored (docs/archive-format.md#block). */
public enum Column {
    EVENT_TIME,
    OBSERVED_TIME,
    RECORD_ID,
    LEVEL,
    SERVICE,
    INSTANCE_ID,
    REGION,
    TRACE_ID,
    SPAN_ID,
    SOURCE
}
