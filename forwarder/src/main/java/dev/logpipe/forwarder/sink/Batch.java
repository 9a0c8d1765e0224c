package dev.logpipe.forwarder.sink;

import dev.logpipe.forwarder.process.Attributes;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.RecordId;
import java.util.Arrays;

/**
 * Records read from one file in one step, in file order, with the offset up to which the file is done
 * once the batch is published ({@link #commitOffset}: it also covers filtered and skipped records).
 * Record bytes live in the batch's own arena. A batch is reused: {@link #reset} starts the next one.
 * Confined to the pipeline thread; a sink must not keep references past {@link Sink#publish}.
 */
public final class Batch {
    /** The file a batch comes from, with JSON fragments precomputed once per file for the encoders. */
    public static final class Source {
        private final String path;
        private final RecordId.Scope ids;
        private final String service;
        /** From the record id's closing quote to the message key, with the source's service. */
        final byte[] afterId;
        /** The same without a service, for records whose transform sets one. */
        final byte[] afterIdNoService;
        /** From the end of the message to the offset value. */
        final byte[] afterMessage;

        public Source(String path, String host, RecordId.Scope ids, String service) {
            this.path = path;
            this.ids = ids;
            this.service = service;
            JsonBuffer b = new JsonBuffer(64);
            b.ascii("\",\"instance_id\":").string(host);
            this.afterIdNoService = b.toByteArray();
            if (service != null) {
                b.ascii(",\"service\":").string(service);
            }
            this.afterId = b.toByteArray();
            b.reset();
            b.ascii(",\"fields\":{\"log.file.path\":").string(path).ascii(",\"log.offset\":");
            this.afterMessage = b.toByteArray();
        }

        public String path() {
            return path;
        }

        public RecordId.Scope ids() {
            return ids;
        }

        public String service() {
            return service;
        }
    }

    private Source source;
    private byte[] arena = new byte[64 * 1024];
    private int arenaLen;
    private int[] off = new int[256];
    private int[] len = new int[256];
    private int[] lines = new int[256];
    private long[] start = new long[256];
    private long[] end = new long[256];
    private boolean[] truncated = new boolean[256];
    private Attributes[] attributes = new Attributes[256];
    private int size;
    private long commitOffset;
    private long skipped;

    public void reset(Source src, long committedSoFar) {
        this.source = src;
        Arrays.fill(attributes, 0, size, null);
        size = 0;
        arenaLen = 0;
        skipped = 0;
        commitOffset = committedSoFar;
    }

    public void add(byte[] bytes, int offset, int length, long startOffset, long endOffset, int lineCount,
                    boolean wasTruncated, Attributes attrs) {
        if (size == off.length) {
            grow();
        }
        if (arenaLen + length > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaLen + length));
        }
        System.arraycopy(bytes, offset, arena, arenaLen, length);
        off[size] = arenaLen;
        len[size] = length;
        lines[size] = lineCount;
        start[size] = startOffset;
        end[size] = endOffset;
        truncated[size] = wasTruncated;
        attributes[size] = attrs;
        arenaLen += length;
        size++;
        commitOffset = endOffset;
    }

    /** A record that is deliberately not published (filtered, or skipped by a transform) still advances the commit offset. */
    public void skip(long endOffset) {
        commitOffset = endOffset;
        skipped++;
    }

    private void grow() {
        int n = off.length * 2;
        off = Arrays.copyOf(off, n);
        len = Arrays.copyOf(len, n);
        lines = Arrays.copyOf(lines, n);
        start = Arrays.copyOf(start, n);
        end = Arrays.copyOf(end, n);
        truncated = Arrays.copyOf(truncated, n);
        attributes = Arrays.copyOf(attributes, n);
    }

    public Source source() {
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

    /** The arena holding every record's bytes; see {@link #offset} and {@link #length}. */
    public byte[] arena() {
        return arena;
    }

    public int arenaSize() {
        return arenaLen;
    }

    public int offset(int i) {
        return off[i];
    }

    public int length(int i) {
        return len[i];
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

    public boolean truncated(int i) {
        return truncated[i];
    }

    public Attributes attributes(int i) {
        return attributes[i];
    }

    public String recordId(int i) {
        return source.ids().at(start[i]);
    }
}
