package dev.logpipe.collector.internal.compat;

import dev.logpipe.collector.internal.ingest.RecordLines;
import java.io.IOException;

/**
 * Items decoded from a body held whole ({@link WholeBody}): a subclass's {@link #advance} sets the next item with
 * {@link #emit}, {@link #refuse} or {@link #tooLong(long)}. Items are numbered from 1 in order.
 */
public abstract class DecodedLines implements RecordLines {
    private byte[] line = new byte[0];
    private int length;
    private long tooLong;
    private String refused;
    private int number;

    /** Sets the next item; false at the end. */
    protected abstract boolean advance() throws IOException;

    /** Bytes the decoder holds besides the current item (its body, its context). */
    protected abstract long contextBytes();

    protected final void emit(byte[] recordLine) {
        line = recordLine;
        length = recordLine.length;
    }

    protected final void refuse(String reason, byte[] raw) {
        refused = reason;
        emit(raw);
    }

    protected final void tooLong(long bytes) {
        tooLong = bytes;
        line = new byte[0];
        length = 0;
    }

    @Override
    public final boolean next() throws IOException {
        tooLong = 0;
        refused = null;
        length = 0;
        if (!advance()) {
            return false;
        }
        number++;
        return true;
    }

    @Override
    public final byte[] array() {
        return line;
    }

    @Override
    public final int offset() {
        return 0;
    }

    @Override
    public final int length() {
        return length;
    }

    @Override
    public final long tooLong() {
        return tooLong;
    }

    @Override
    public final String refused() {
        return refused;
    }

    @Override
    public final int number() {
        return number;
    }

    @Override
    public final long heldBytes() {
        return contextBytes() + line.length;
    }
}
