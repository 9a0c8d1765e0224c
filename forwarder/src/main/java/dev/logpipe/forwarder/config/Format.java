package dev.logpipe.forwarder.config;

/** How the stdout and file sinks write a record: an NDJSON record line, or the original line as read. */
public enum Format {
    NDJSON,
    RAW
}
