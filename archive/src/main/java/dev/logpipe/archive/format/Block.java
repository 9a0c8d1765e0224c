package dev.logpipe.archive.format;

import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import java.nio.charset.StandardCharsets;

/**
 * One block decoded: its records in {@code OLDEST_FIRST} order (time ascending, id descending), as parallel columns
 * (row {@code i} of each is record {@code i}). A format 2 record whose source is rebuilt from columns comes as its
 * {@link LogRecord} (no JSON to parse: {@link #decoded}), made on first use from its message and its fields' bytes (a
 * message scan makes none); its source text is made on first use too ({@link #source}). Read-only after {@link
 * ArchiveReader#block} returns it, apart from those caches of records and sources, which any thread may fill (the same
 * immutable value each time).
 */
public final class Block {
    private static final RecordCodec CODEC = new RecordCodec();

    private final String archive;
    private final int index;
    final long[] eventTimes;
    final long[] observedTimes;
    final String[] recordIds;
    final Level[] levels;
    final String[] services;
    final String[] instanceIds;
    final String[] regions;
    final String[] traceIds;
    final String[] spanIds;
    /** The source of each record; for a rebuilt one null until first asked for. */
    final String[] sources;
    /** The record each rebuilt source is made of; null for a source stored as it came, or until first asked for. */
    final LogRecord[] rebuilt;
    /** What each rebuilt record is made of, its fields still in {@link #fieldsColumn}; null for a stored source. */
    final SourceRebuild.Pending[] pending;
    /** The tenant of the archive: every rebuilt record's. */
    private final String tenant;
    /** The block's {@code FIELDS} column, decompressed (null in format 1), read only. */
    byte[] fieldsColumn;

    Block(String archive, String tenant, int index, int n) {
        this.archive = archive;
        this.tenant = tenant;
        this.index = index;
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
        rebuilt = new LogRecord[n];
        pending = new SourceRebuild.Pending[n];
    }

    public int size() {
        return eventTimes.length;
    }

    public long eventTimeMillis(int i) {
        return eventTimes[i];
    }

    public long observedTimeMillis(int i) {
        return observedTimes[i];
    }

    public String recordId(int i) {
        return recordIds[i];
    }

    /**
     * Record {@code i}'s source exactly as accepted.
     *
     * @throws CorruptArchiveException the record's columns make no record (names the archive, block and row)
     */
    public String source(int i) throws CorruptArchiveException {
        String s = sources[i];
        if (s == null) {
            s = new String(SourceRebuild.source(decoded(i)), StandardCharsets.UTF_8);
            sources[i] = s;
        }
        return s;
    }

    /**
     * Record {@code i}'s source as UTF-8 (a rebuilt one made again, not kept: for a caller that needs bytes once).
     *
     * @throws CorruptArchiveException the record's columns make no record (names the archive, block and row)
     */
    public byte[] sourceUtf8(int i) throws CorruptArchiveException {
        String s = sources[i];
        return s != null ? s.getBytes(StandardCharsets.UTF_8) : SourceRebuild.source(decoded(i));
    }

    /**
     * Record {@code i}'s source decoded.
     *
     * @throws CorruptArchiveException a source stored as it came does not decode (names the archive, block and row)
     */
    public LogRecord decoded(int i) throws CorruptArchiveException {
        LogRecord r = rebuilt[i];
        if (r != null) {
            return r;
        }
        SourceRebuild.Pending p = pending[i];
        if (p != null) { // made on first use: any thread may, the same record each time (immutable)
            try {
                r = SourceRebuild.record(tenant, withoutSource(i), p, SourceRebuild.fields(fieldsColumn, p.fieldsAt()));
            } catch (RuntimeException e) {
                throw new CorruptArchiveException(
                        archive,
                        "record " + i + " of block " + index + " does not make a record: " + e.getMessage(),
                        e);
            }
            rebuilt[i] = r;
            return r;
        }
        try {
            return CODEC.decode(sources[i].getBytes(StandardCharsets.UTF_8));
        } catch (RecordFormatException e) {
            throw new CorruptArchiveException(
                    archive, "record " + i + " of block " + index + " does not decode: " + e.getMessage(), e);
        }
    }

    /** Record {@code i}'s message (see {@link #decoded}). */
    public String message(int i) throws CorruptArchiveException {
        SourceRebuild.Pending p = pending[i];
        return p != null ? p.message() : decoded(i).message();
    }

    /** Record {@code i}'s keys and labels, its source empty (what a source is rebuilt around). */
    ArchivedRecord withoutSource(int i) {
        return row(i, "");
    }

    /**
     * Record {@code i} as written.
     *
     * @throws CorruptArchiveException the record's columns make no record (names the archive, block and row)
     */
    public ArchivedRecord record(int i) throws CorruptArchiveException {
        return row(i, source(i));
    }

    private ArchivedRecord row(int i, String source) {
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
                source);
    }
}
