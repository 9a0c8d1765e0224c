package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.Level;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * What a JSON or logfmt reader made of one line: the schema fields it found under the well-known keys, the
 * event time, and every other key as ready-encoded JSON ({@code ,"name":value} pairs for the record's
 * {@code fields}). Reused for every record; confined to the pipeline thread.
 */
public final class StructuredLine {
    /** The message as a quoted JSON string; empty when the line had no message key. */
    final JsonBuffer message = new JsonBuffer(256);
    /** {@code ,"name":value} pairs. */
    final JsonBuffer fields = new JsonBuffer(512);

    /** The field names claimed in this line: the first {@link #FEW_NAMES} here, compared in turn; more in a set. */
    private final String[] fewNames = new String[FEW_NAMES];

    private final int[] fewHashes = new int[FEW_NAMES];

    private int fewCount;
    private final Set<String> moreNames = new HashSet<>();
    private static final int FEW_NAMES = 16;
    String level;
    String service;
    String region;
    String traceId;
    String spanId;
    /** Set instead of the Strings by the fast path: ranges of {@link #src} holding the raw (unescaped) ids. */
    byte[] src;

    int traceOff = -1;
    int traceLen;
    int spanOff = -1;
    int spanLen;
    /** Whether the id's range is a JSON string's content in {@link #src} (else a number or boolean). */
    boolean traceQuoted;

    boolean spanQuoted;
    long time = TimeParser.NONE;
    /** The time key's text when it did not parse (it is kept in the fields too), else null. */
    String badTime;
    /** Why the line is not valid JSON / logfmt, or null. */
    String error;

    int fieldCount;
    private final String[] levelTexts = new String[16];
    private final Level[] levelValues = new Level[16];

    void reset() {
        message.reset();
        fields.reset();
        fewCount = 0;
        if (!moreNames.isEmpty()) {
            moreNames.clear();
        }
        level = null;
        service = null;
        region = null;
        traceId = null;
        spanId = null;
        src = null;
        traceOff = -1;
        spanOff = -1;
        time = TimeParser.NONE;
        badTime = null;
        error = null;
        fieldCount = 0;
    }

    /** Claims a field name for this line: false if it was claimed before (a line's repeated key). */
    boolean claimName(String name) {
        int h = name.hashCode();
        for (int k = 0; k < fewCount; k++) {
            if (fewHashes[k] == h && fewNames[k].equals(name)) {
                return false;
            }
        }
        if (fewCount < FEW_NAMES) {
            fewHashes[fewCount] = h;
            fewNames[fewCount++] = name;
            return true;
        }
        return moreNames.add(name);
    }

    public boolean hasMessage() {
        return message.size() > 0;
    }

    /** The quoted, escaped message; valid up to {@link JsonBuffer#size()} of {@link #messageJson()}. */
    public JsonBuffer messageJson() {
        return message;
    }

    /** {@code ,"name":value} pairs to append inside the record's {@code fields} object. */
    public JsonBuffer fieldsJson() {
        return fields;
    }

    public String level() {
        return level;
    }

    /**
     * The level normalized ({@code Level.normalize}); the last few level texts are cached, since a file's lines
     * repeat a handful of them.
     */
    public Level normalizedLevel() {
        String l = level;
        if (l == null) {
            return null;
        }
        int slot = l.hashCode() & (levelTexts.length - 1);
        if (l.equals(levelTexts[slot])) {
            return levelValues[slot];
        }
        Level v = Level.normalize(l);
        levelTexts[slot] = l;
        levelValues[slot] = v;
        return v;
    }

    public String service() {
        return service;
    }

    public String region() {
        return region;
    }

    public String traceId() {
        if (traceId == null && traceOff >= 0) {
            traceId = new String(src, traceOff, traceLen, StandardCharsets.UTF_8);
        }
        return traceId;
    }

    public String spanId() {
        if (spanId == null && spanOff >= 0) {
            spanId = new String(src, spanOff, spanLen, StandardCharsets.UTF_8);
        }
        return spanId;
    }

    public boolean hasTraceId() {
        return traceId != null || traceOff >= 0;
    }

    public boolean hasSpanId() {
        return spanId != null || spanOff >= 0;
    }

    /**
     * Appends the trace id as a quoted JSON string (without making a String when it came as bytes). Quoted bytes
     * come from the JSON fast path, which takes only ids without escapes or control characters and in valid UTF-8:
     * the JSON string of those is the bytes in quotes. Unquoted bytes (a number in JSON, a logfmt value: ASCII
     * only, so they encode as their String would) are escaped as they are written.
     */
    public void writeTraceId(JsonBuffer out) {
        if (traceId != null) {
            out.string(traceId);
        } else {
            bytes(src, traceOff, traceLen, traceQuoted, out);
        }
    }

    public void writeSpanId(JsonBuffer out) {
        if (spanId != null) {
            out.string(spanId);
        } else {
            bytes(src, spanOff, spanLen, spanQuoted, out);
        }
    }

    private static void bytes(byte[] src, int off, int len, boolean quoted, JsonBuffer out) {
        if (quoted) {
            out.raw(src, off - 1, len + 2); // with the quotes around it in the line
        } else {
            out.string(src, off, len);
        }
    }

    /** Epoch nanoseconds, or {@link TimeParser#NONE}. */
    public long time() {
        return time;
    }

    public String badTime() {
        return badTime;
    }

    public String error() {
        return error;
    }

    /** Appends continuation lines (a stack trace after a JSON line) to the message, after a newline. */
    public void appendToMessage(byte[] b, int off, int len, JsonBuffer scratch) {
        scratch.reset();
        if (message.size() == 0) {
            message.string(b, off, len);
            return;
        }
        scratch.string(b, off, len);
        // Drop the closing quote, write an escaped newline, then the rest without its opening quote.
        int keep = message.size() - 1;
        message.reset();
        message.advance(keep);
        message.ascii("\\n").raw(scratch.array(), 1, scratch.size() - 1);
    }
}
