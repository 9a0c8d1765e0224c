package dev.logpipe.collector.internal.ingest;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.LongPredicate;

/**
 * Plain log lines as records: each line that is taken as text becomes the record {@code {"message":"<the line>"}}
 * (the collector then adds the key's tenant, the record id and the observed time, as for any record). {@link Mode}
 * says which lines are text: all of them ({@code Content-Type: text/plain}), or those that do not start with
 * {@code {} (a body sent as a form, curl's default for {@code --data-binary}), so NDJSON records in such a body stay
 * records. Blank lines stay blank (skipped). Invalid UTF-8 in a line is replaced (U+FFFD), as a text body is read.
 */
final class TextLines implements RecordLines {
    /** Which lines are messages. */
    enum Mode {
        /** Every line. */
        ALL,
        /** Lines whose first non-blank byte is not {@code {}. */
        NOT_JSON
    }

    private static final byte[] OPEN = "{\"message\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "\"}".getBytes(StandardCharsets.US_ASCII);

    private final RecordLines lines;
    private final Mode mode;
    private final LongPredicate mayHold;
    private byte[] record = new byte[0];
    private boolean text;
    private int length;

    TextLines(RecordLines lines, Mode mode, LongPredicate mayHold) {
        this.lines = lines;
        this.mode = mode;
        this.mayHold = mayHold;
    }

    /** Lines split as NDJSON lines are, then read as {@code mode} says. */
    static RecordLines.Opener opener(Mode mode) {
        return (in, max, mayHold) -> {
            RecordLines lines = RecordLines.NDJSON.open(in, max, mayHold);
            return new TextLines(lines, mode, bytes -> mayHold.test(lines.heldBytes() + bytes));
        };
    }

    @Override
    public boolean next() throws IOException {
        if (!lines.next()) {
            return false;
        }
        text = false;
        int len = lines.length();
        if (len == 0 || lines.tooLong() > 0 || blank(lines.array(), lines.offset(), len)) {
            return true;
        }
        if (mode == Mode.NOT_JSON && firstByte(lines.array(), lines.offset(), len) == '{') {
            return true;
        }
        String line = new String(lines.array(), lines.offset(), len, StandardCharsets.UTF_8);
        byte[] quoted = JsonStringEncoder.getInstance().quoteAsUTF8(line);
        int need = OPEN.length + quoted.length + CLOSE.length;
        if (record.length < need) {
            if (!mayHold.test(need)) {
                throw new BodyException(503, "the collector is at its in-flight bound (limits.in_flight_bytes)");
            }
            record = new byte[need];
        }
        System.arraycopy(OPEN, 0, record, 0, OPEN.length);
        System.arraycopy(quoted, 0, record, OPEN.length, quoted.length);
        System.arraycopy(CLOSE, 0, record, OPEN.length + quoted.length, CLOSE.length);
        length = need;
        text = true;
        return true;
    }

    private static boolean blank(byte[] a, int off, int len) {
        return firstByte(a, off, len) < 0;
    }

    /** The first byte that is not a space or a tab, or -1. */
    private static int firstByte(byte[] a, int off, int len) {
        for (int i = off; i < off + len; i++) {
            if (a[i] != ' ' && a[i] != '\t') {
                return a[i] & 0xFF;
            }
        }
        return -1;
    }

    @Override
    public byte[] array() {
        return text ? record : lines.array();
    }

    @Override
    public int offset() {
        return text ? 0 : lines.offset();
    }

    @Override
    public int length() {
        return text ? length : lines.length();
    }

    @Override
    public long tooLong() {
        return lines.tooLong();
    }

    @Override
    public String refused() {
        return lines.refused();
    }

    @Override
    public int number() {
        return lines.number();
    }

    @Override
    public long heldBytes() {
        return lines.heldBytes() + record.length;
    }
}
