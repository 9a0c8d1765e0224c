package dev.logpipe.record;

/** A line that is not a valid schema-v3 record; the message says why, in words fit for a dead-letter reason. */
public final class RecordFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public RecordFormatException(String reason) {
        super(reason);
    }
}
