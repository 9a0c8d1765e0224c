package dev.logpipe.archive.format;

import dev.logpipe.record.Level;

/**
 * One block decoded: its records in {@code OLDEST_FIRST} order (time ascending, id descending), as parallel columns (row {@code i} of each is record
 * {@code i}). Immutable after {@link ArchiveReader#block} returns it; read-only arrays by convention.
 */
public final class Block {
    final long[] eventTimes;
    final long[] observedTimes;
    final String[] recordIds;
    final Level[] levels;
    final String[] services;
    final String[] instanceIds;
    final String[] regions;
    final String[] traceIds;
    final String[] spanIds;
    final String[] sources;

    Block(int n) {
        eventTimes = new long[n];
        observedTimes = new long[n];
        recordIds = new String[n];
        levels = new Level[n];
        services = new String[n];
        instanceIds = new String[n];
        regions = new String[n];
        traceIds = new String[n];
        spanIds = new String[n];
        sources = new String[n];
    }

    public int size() {
        return sources.length;
    }

    public long eventTimeMillis(int i) {
        return eventTimes[i];
    }

    public String recordId(int i) {
        return recordIds[i];
    }

    public String source(int i) {
        return sources[i];
    }

    /** Record {@code i} as written. */
    public ArchivedRecord record(int i) {
        return new ArchivedRecord(
                eventTimes[i],
                observedTimes[i],
                recordIds[i],
                levels[i],
                services[i],
                instanceIds[i],
                regions[i],
                traceIds[i],
                spanIds[i],
                sources[i]);
    }
}
