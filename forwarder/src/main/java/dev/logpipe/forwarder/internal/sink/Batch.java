package dev.logpipe.forwarder.internal.sink;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.parse.StructuredLine;
import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.forwarder.internal.time.EventTimeWriter;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Records read from one file in one step, in file order, with the offset up to which the file is done
 * once the batch is published ({@link #commitOffset}: it also covers filtered and skipped records).
 * Records are encoded for the sink as they are added, while their bytes are hot in the reading thread's
 * cache, so the publishing thread only writes, or, in a {@link #deferEncoding deferred} batch, copied and
 * encoded by a parse thread before the publish thread sends it. A batch is reused: {@link #reset} starts the
 * next one. Filled on the pipeline thread (and a parse thread); a sink must not keep references past
 * {@link Sink#publish}.
 * The pipeline adds a record as a {@link Line} (made per record; C2 removes it on that path, docs/benchmarks.md,
 * "Value records on the per-line path"). The primitive {@code add}s are the benchmarks' and tests' direct calls
 * (HotPathBench, JsonLineBench measure exactly them, so they stay as they were measured); {@code defer} and
 * {@code encode} take a record's parts as primitives: the deferred ones are copied into arrays, not into objects.
 * {@code restore}, once per spooled batch, takes a {@link RecordTable}.
 */
public final class Batch {
    private final Format format;
    private final JsonBuffer wire = new JsonBuffer(256 * 1024);
    private final EventTimeWriter times = new EventTimeWriter();
    private SourceFile source;
    private int[] recordEnd = new int[256];
    private int[] lines = new int[256];
    private long[] start = new long[256];
    private long[] end = new long[256];
    private int size;
    private long commitOffset;
    private long skipped;
    private long generation;
    /** The records waiting for a parse thread, or null while the batch is encoded as records are added. */
    private DeferredRecords deferred;

    private DeferredRecords deferredStore;

    /** A batch whose records are encoded in {@code format} as they are added (on the thread that reads). */
    public Batch(Format format) {
        this.format = format;
    }

    public void reset(SourceFile src, long committedSoFar) {
        generation++;
        this.source = src;
        wire.reset();
        size = 0;
        skipped = 0;
        commitOffset = committedSoFar;
        deferred = null;
    }

    /**
     * Leaves this (just reset) batch's encoding to a parse thread: records are {@link #defer deferred}, encoded
     * later by {@link #encodeDeferred} and {@link #encoded}; the publish thread {@link #awaitEncoded awaits} that.
     */
    public void deferEncoding() {
        if (size != 0) {
            throw new IllegalStateException("a batch with records cannot be deferred");
        }
        if (deferredStore == null) {
            deferredStore = new DeferredRecords();
        }
        deferredStore.reset();
        deferred = deferredStore;
    }

    /** Whether records are deferred to a parse thread instead of encoded as they are added. */
    public boolean deferred() {
        return deferred != null;
    }

    /**
     * Appends one record to a deferred batch, copying its bytes; the arguments are those of {@link #add(Line,
     * Attributes, StructuredLine, long)}, without the parsed body and event time (the parse thread finds them).
     */
    public void defer(Line l, Attributes attrs) {
        if (size == recordEnd.length) {
            grow();
        }
        deferred.add(l.bytes(), l.off(), l.len(), l.truncated(), attrs, l.runtimeTime(), l.flags());
        appended(l.lines(), l.startOffset(), l.endOffset(), l.commit());
    }

    /** The bytes of the deferred records (record {@code i} at {@link #deferredOffset}), valid until the next reset. */
    public byte[] deferredBytes() {
        return deferred.bytes();
    }

    public int deferredOffset(int i) {
        return deferred.offset(i);
    }

    public int deferredLength(int i) {
        return deferred.length(i);
    }

    public Attributes deferredAttributes(int i) {
        return deferred.attributes(i);
    }

    public long deferredRuntimeTime(int i) {
        return deferred.runtimeTime(i);
    }

    /** Encodes deferred record {@code i}; call it for every record in order, then {@link #encoded}. */
    public void encodeDeferred(int i, StructuredLine body, long eventTime) {
        if (i != 0 && recordEnd[i - 1] != wire.size() || i == 0 && wire.size() != 0) {
            throw new IllegalStateException("deferred records are encoded in order, once");
        }
        DeferredRecords d = deferred;
        encode(
                d.bytes(),
                d.offset(i),
                d.length(i),
                start[i],
                d.truncated(i),
                d.attributes(i),
                body,
                eventTime,
                d.flags(i));
        recordEnd[i] = wire.size();
    }

    /** Signals that a deferred batch is encoded ({@code failure} null) or could not be (then it is not published). */
    public void encoded(Throwable failure) {
        deferred.done(failure);
    }

    /**
     * Waits until a deferred batch is encoded; returns at once for a batch encoded as records were added.
     *
     * @return null, or why the batch could not be encoded
     */
    public Throwable awaitEncoded() throws InterruptedException {
        DeferredRecords d = deferred;
        return d == null ? null : d.await();
    }

    /**
     * One record as the reading thread hands it on: its bytes ({@code bytes[off, off + len)}, valid only during the
     * call it is passed to), where it starts and ends in the file, how far the file is done once it is published
     * ({@code commit}), its physical lines, whether it was cut, the container runtime's time and flags (as in
     * {@link dev.logpipe.forwarder.internal.parse.Emitter#record}). Made once per record and not kept, so C2 removes
     * it (docs/benchmarks.md, "Value records on the per-line path").
     */
    public record Line(
            byte[] bytes,
            int off,
            int len,
            long startOffset,
            long endOffset,
            long commit,
            int lines,
            boolean truncated,
            long runtimeTime,
            int flags) {}

    /**
     * Encodes one record and appends it (the pipeline's call, from {@code RecordDecoder}); the primitive {@code add}s
     * come here too, so the benchmarks that call them measure this path.
     */
    public void add(Line l, Attributes attrs, StructuredLine body, long eventTime) {
        if (deferred != null) {
            throw new IllegalStateException("records of a deferred batch are added with defer()");
        }
        if (size == recordEnd.length) {
            grow();
        }
        encode(l.bytes(), l.off(), l.len(), l.startOffset(), l.truncated(), attrs, body, eventTime, l.flags());
        recordEnd[size] = wire.size();
        appended(l.lines(), l.startOffset(), l.endOffset(), l.commit());
    }

    /** Encodes one record and appends it; {@code bytes} need only be valid during the call. */
    public void add(
            byte[] bytes,
            int offset,
            int length,
            long startOffset,
            long endOffset,
            int lineCount,
            boolean wasTruncated,
            Attributes attrs) {
        add(
                bytes,
                offset,
                length,
                startOffset,
                endOffset,
                endOffset,
                lineCount,
                wasTruncated,
                attrs,
                null,
                TimeParser.NONE,
                0);
    }

    /**
     * Encodes one record and appends it. {@code endOffset} is where the record ends in the file,
     * {@code commit} how far the file is done once it is published (before {@code endOffset} while an earlier
     * split container line is incomplete). {@code body} is what a JSON or logfmt reader made of the line (or null);
     * {@code eventTime} is in epoch nanoseconds or {@code TimeParser.NONE}; {@code flags} as in
     * {@link dev.logpipe.forwarder.internal.parse.Emitter#record}.
     */
    public void add(
            byte[] bytes,
            int offset,
            int length,
            long startOffset,
            long endOffset,
            long commit,
            int lineCount,
            boolean wasTruncated,
            Attributes attrs,
            StructuredLine body,
            long eventTime,
            int flags) {
        add(
                new Line(
                        bytes,
                        offset,
                        length,
                        startOffset,
                        endOffset,
                        commit,
                        lineCount,
                        wasTruncated,
                        TimeParser.NONE,
                        flags),
                attrs,
                body,
                eventTime);
    }

    /** The bookkeeping of the record just appended at {@code size} (encoded or deferred): then it counts. */
    private void appended(int lineCount, long startOffset, long endOffset, long commit) {
        lines[size] = lineCount;
        start[size] = startOffset;
        end[size] = endOffset;
        size++;
        commitOffset = commit;
    }

    private void encode(
            byte[] bytes,
            int offset,
            int length,
            long startOffset,
            boolean wasTruncated,
            Attributes attrs,
            StructuredLine body,
            long eventTime,
            int flags) {
        if (format == Format.RAW) {
            if (body != null && body.error() == null) {
                writeRawMessage(body);
            } else {
                wire.raw(bytes, offset, length).raw((byte) '\n');
            }
        } else {
            NdjsonEncoder.encode(
                    source,
                    bytes,
                    offset,
                    length,
                    startOffset,
                    wasTruncated,
                    attrs,
                    body,
                    eventTime,
                    flags,
                    times,
                    wire);
        }
    }

    /** With {@code format: raw}, a structured line's message (without its JSON quoting) is what is written. */
    private void writeRawMessage(StructuredLine body) {
        JsonBuffer m = body.messageJson();
        if (m.size() >= 2) {
            wire.raw(unquote(m.array(), m.size()));
        }
        wire.raw((byte) '\n');
    }

    private static final ObjectMapper UNQUOTE = new ObjectMapper();

    private static byte[] unquote(byte[] json, int n) {
        try {
            String s = UNQUOTE.readValue(json, 0, n, String.class);
            return s.getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("the forwarder wrote an invalid JSON string", e);
        }
    }

    /**
     * The bookkeeping of {@code count} records read back from the disk spool: record {@code i} ends
     * {@code recordEnds[i]} bytes into its wire bytes (after its newline), starts at file offset {@code starts[i]},
     * ends at {@code ends[i]} and covers {@code lineCounts[i]} lines. The arrays are not copied (they are the spool
     * frame's, read once).
     */
    public record RecordTable(int count, int[] recordEnds, long[] starts, long[] ends, int[] lineCounts) {
        public RecordTable {
            if (count < 0
                    || recordEnds.length < count
                    || starts.length < count
                    || ends.length < count
                    || lineCounts.length < count) {
                throw new IllegalArgumentException("a record table of " + count + " records with arrays of "
                        + recordEnds.length + ", " + starts.length + ", " + ends.length + " and " + lineCounts.length);
            }
        }
    }

    /**
     * Refills this batch with records encoded earlier (read back from the disk spool): {@code wire} holds them
     * one per line from {@code wireOffset}, as {@code records} says.
     */
    public void restore(SourceFile src, byte[] wire, int wireOffset, int wireLength, RecordTable records, long commit) {
        reset(src, commit);
        this.wire.raw(wire, wireOffset, wireLength);
        int n = records.count();
        while (recordEnd.length < n) {
            grow();
        }
        System.arraycopy(records.recordEnds(), 0, recordEnd, 0, n);
        System.arraycopy(records.starts(), 0, start, 0, n);
        System.arraycopy(records.ends(), 0, end, 0, n);
        System.arraycopy(records.lineCounts(), 0, lines, 0, n);
        size = n;
    }

    /** Where record {@code i} ends in {@link #wire()}, including its newline. */
    public int recordEnd(int i) {
        return recordEnd[i];
    }

    /** A record that is deliberately not published (filtered, or skipped by a transform) still advances the commit offset. */
    public void skip(long endOffset) {
        commitOffset = endOffset;
        skipped++;
    }

    private void grow() {
        int n = recordEnd.length * 2;
        recordEnd = Arrays.copyOf(recordEnd, n);
        lines = Arrays.copyOf(lines, n);
        start = Arrays.copyOf(start, n);
        end = Arrays.copyOf(end, n);
    }

    /** Changes on every {@link #reset}: tells a sink whether a batch object holds the records it saw before. */
    public long generation() {
        return generation;
    }

    public Format format() {
        return format;
    }

    public SourceFile source() {
        return source;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public long skipped() {
        return skipped;
    }

    public long commitOffset() {
        return commitOffset;
    }

    /** Every record, encoded, one per line: what a file, stdout or HTTP sink writes as is. */
    public JsonBuffer wire() {
        return wire;
    }

    /** Where record {@code i} starts in {@link #wire()}. */
    public int wireStart(int i) {
        return i == 0 ? 0 : recordEnd[i - 1];
    }

    /** Where record {@code i} ends in {@link #wire()}, excluding its newline. */
    public int wireEnd(int i) {
        return recordEnd[i] - 1;
    }

    public int lines(int i) {
        return lines[i];
    }

    public long startOffset(int i) {
        return start[i];
    }

    public long endOffset(int i) {
        return end[i];
    }

    public String recordId(int i) {
        return source.ids().at(start[i]);
    }
}
