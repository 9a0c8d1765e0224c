package dev.logpipe.index.store.read;

/** The sort key of the last hit of a page (event time, record id): the next page starts after it. */
public record After(long eventTimeMillis, String recordId) {}
