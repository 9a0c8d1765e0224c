package dev.logpipe.archive.format;

/**
 * The columns of a block, in the order they are stored (docs/archive-format.md#block). Format 1 has the first
 * {@link #FORMAT_1_COLUMNS}; format 2 adds the three a record's source is rebuilt from.
 */
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
    /** The source as accepted (format 1: every record's; format 2: only those that do not rebuild, else null). */
    SOURCE,
    /** Format 2, per rebuilt record: schema version, event-time offset and the sub-millisecond parts of both times. */
    REBUILD,
    /** Format 2: the block's shape list, then per rebuilt record its message as shape numbers ({@link MessageColumns}). */
    MESSAGE,
    /** Format 2, per rebuilt record: the structured fields, typed. */
    FIELDS,
    /** Format 2: the words of rebuilt messages not in the block's shape list, in order. */
    LITERALS,
    /** Format 2: the numbers of rebuilt messages' words, in order ({@link MessageColumns}). */
    NUMBERS;

    /** How many columns a format 1 block has. */
    public static final int FORMAT_1_COLUMNS = 10;

    /** How many columns a block of {@code format} has. */
    static int count(int format) {
        return format == 1 ? FORMAT_1_COLUMNS : values().length;
    }
}
