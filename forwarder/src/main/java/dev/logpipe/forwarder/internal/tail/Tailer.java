package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.parse.ContainerLines;
import dev.logpipe.forwarder.internal.parse.Emitter;
import dev.logpipe.forwarder.internal.parse.Parser;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.SourceFile;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.watermark.PublishedJournal;
import dev.logpipe.forwarder.internal.watermark.Watermark;
import dev.logpipe.record.RecordId;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads one open file: from the committed offset on, chunk by chunk, into complete lines and parsed
 * records. It keeps the file descriptor, so a renamed or deleted file is still read to its end. What it
 * reads counts as done only when {@link #commit} is called after the sink acknowledged. Confined to the
 * pipeline thread, except the volatile progress fields read by metrics.
 */
final class Tailer implements Closeable, LineSplitter.LineConsumer {
    /** {@link #read} result: the file is now shorter than what was read (copytruncate). */
    static final int TRUNCATED = -1;
    /** {@link #read} result: same inode, but its first line changed (truncated and written again past our offset). */
    static final int REWRITTEN = -2;

    /**
     * Where reading starts, and up to where its lines are replays.
     *
     * @param offset      the committed offset (at a line boundary)
     * @param replayUntil how far the previous run had published this file's content (its re-read lines are
     *                    replays), or -1 if not past {@code offset}
     */
    record Start(long offset, long replayUntil) {}

    private final FileKey key;
    private final FileChannel channel;
    private final String host;
    private final String service;
    private final LineSplitter splitter;
    private final Parser parser;
    /** The container runtime's line decoder (cri, docker), or null. */
    private final ContainerLines container;
    /** How the records are read (JSON, logfmt), or null for plain text. */
    private final LineContent content;
    /** Pre-encoded Kubernetes fields of the file's first name (kept across renames), or null. */
    private final byte[] kubernetesFields;
    /** Offset up to which the previous run had published this file (its re-read lines are replays); -1 if none. */
    private long replayUntil;

    private Fingerprint fingerprint;
    private String path;
    private SourceFile source;
    private long readOffset;
    private volatile long committed;
    /** Commit offset of the last batch handed to the sink (acknowledged or still in flight). */
    private long dispatched;

    private volatile long size;
    private Tailer predecessor;
    private boolean reachedEof;
    private long unseenSinceNanos = -1;

    private final PollPacing pacing = new PollPacing();

    private Emitter emitter;
    private long nowNanos;
    private long linesSeen;

    Tailer(String path, FileKey key, FileChannel channel, Fingerprint fingerprint, Start start, FileDecoding decoding)
            throws IOException {
        this.path = path;
        this.key = key;
        this.channel = channel;
        this.fingerprint = fingerprint;
        this.host = decoding.host();
        this.service = decoding.service();
        this.parser = decoding.parser();
        this.container = decoding.container();
        this.content = decoding.content();
        this.kubernetesFields =
                decoding.kubernetes() == null ? null : decoding.kubernetes().fieldsJson();
        this.replayUntil = start.replayUntil();
        this.splitter = new LineSplitter(decoding.maxLineBytes(), start.offset());
        this.readOffset = start.offset();
        this.committed = start.offset();
        this.dispatched = start.offset();
        this.size = channel.size();
        this.source = buildSource();
    }

    /**
     * Completes a provisional fingerprint (taken before the file had a whole first line). Call it before
     * starting a batch, so the batch's source carries the final record-id scope.
     */
    void refreshFingerprint() throws IOException {
        if (!fingerprint.complete()) {
            fingerprint = Fingerprint.of(channel);
            source = buildSource();
        }
    }

    /**
     * Reads the next chunk (at most the buffer's capacity) and hands its complete lines to the parser,
     * whose records go to {@code out}.
     *
     * @return bytes read; 0 at end of file; {@link #TRUNCATED} if the file shrank below what was read;
     *         {@link #REWRITTEN} if its first line changed (truncated and written again)
     */
    int read(ByteBuffer buf, Emitter out, long now) throws IOException {
        long sz = channel.size();
        size = sz;
        if (sz < readOffset) {
            return TRUNCATED;
        }
        if (sz == readOffset) {
            reachedEof = true;
            return 0;
        }
        if (readOffset > 0
                && fingerprint.complete()
                && !Fingerprint.matches(channel, fingerprint.hash(), fingerprint.bytes())) {
            return REWRITTEN;
        }
        long limit = sz;
        if (!fingerprint.complete()) {
            // No newline yet when the fingerprint was taken: read no further than the bytes it saw, so no line
            // can complete before the fingerprint (and with it every record id) is final.
            limit = Math.min(limit, fingerprint.bytes());
            if (limit <= readOffset) {
                reachedEof = true;
                return 0;
            }
        }
        buf.clear();
        buf.limit((int) Math.min(buf.capacity(), limit - readOffset));
        int n = channel.read(buf, readOffset);
        if (n <= 0) {
            reachedEof = true;
            return 0;
        }
        reachedEof = readOffset + n >= sz;
        emitter = out;
        nowNanos = now;
        splitter.feed(buf.array(), 0, n, this);
        emitter = null;
        readOffset += n;
        return n;
    }

    @Override
    public void line(byte[] bytes, int off, int len, long startOffset, long endOffset, boolean truncated) {
        linesSeen++;
        if (container != null) {
            container.line(bytes, off, len, startOffset, endOffset, truncated, nowNanos, parser, emitter);
        } else {
            parser.line(bytes, off, len, startOffset, endOffset, truncated, TimeParser.NONE, 0, nowNanos, emitter);
        }
    }

    /** How the file's records are read: JSON or logfmt, or null for plain text. */
    LineContent content() {
        return content;
    }

    /** Whether the file's records are worth decoding on a parse thread: structured or in a container's lines. */
    boolean parsesHeavily() {
        return content != null || container != null;
    }

    /**
     * Start offset of the earliest held-back container piece, or Long.MAX_VALUE: no record may commit past it,
     * so a restart reads the split line whole.
     */
    long holdFloor() {
        return container == null ? Long.MAX_VALUE : container.holdFloor();
    }

    /** How often the file is looked at, and whether reading it fails. */
    PollPacing pacing() {
        return pacing;
    }

    /**
     * After a truncation, once everything of the old content is acknowledged (the caller flushes the parser
     * first): reading restarts at offset 0 with the new content's fingerprint.
     */
    void restartAtZero(PublishedJournal journal) throws IOException {
        journal.release(journalKey()); // the old content's entry; the new content gets its own key
        if (container != null) {
            container.discard();
        }
        splitter.reset(0);
        readOffset = 0;
        dispatched = 0;
        replayUntil = -1; // new content: nothing of it was published by an earlier run
        fingerprint = Fingerprint.of(channel);
        source = buildSource();
    }

    /** Forgets what was read after the last dispatched record (held-back lines included); reading resumes there. */
    void rewindToDispatched() {
        parser.discard();
        if (container != null) {
            container.discard();
        }
        splitter.reset(dispatched);
        readOffset = dispatched;
    }

    boolean flushIfIdle(long now, Emitter out) {
        return parser.hasPending() && parser.flushIfIdle(now, out);
    }

    /** Emits what the parser holds back; held-back container pieces stay (they are read again after a restart). */
    void flushParser(Emitter out) {
        parser.flush(out);
    }

    /**
     * Emits held-back container pieces as partial records, then what the parser holds: for a file whose rest
     * will never come (rotated away and read to its end, or truncated).
     */
    void flushAll(Emitter out, long now) {
        if (container != null && container.hasPending()) {
            container.flushPartials(splitter.committedBoundary(), now, parser, out);
        }
        parser.flush(out);
    }

    boolean hasPendingRecord() {
        return parser.hasPending() || container != null && container.hasPending();
    }

    /** Whether a container piece is held back (its line's end was not read yet). */
    boolean hasPendingPiece() {
        return container != null && container.hasPending();
    }

    /** Runtime lines that were not in the runtime's format since the last call. */
    long takeMalformed() {
        return container == null ? 0 : container.takeMalformed();
    }

    long dispatched() {
        return dispatched;
    }

    void dispatched(long offset) {
        dispatched = offset;
    }

    /** The sink acknowledged everything up to {@code offset}. */
    void commit(long offset, PublishedJournal journal) {
        committed = offset;
        if (fingerprint.complete()) {
            // Never lower what an earlier run had published: a crash now must still count those lines as replays.
            journal.published(journalKey(), Math.max(offset, replayUntil));
        }
    }

    /** Lines of {@code batch} the previous run had already published (they are replays). */
    long replayedLines(Batch batch) {
        if (replayUntil <= 0) {
            return 0;
        }
        long n = 0;
        for (int i = 0; i < batch.size() && batch.endOffset(i) <= replayUntil; i++) {
            n += batch.lines(i);
        }
        return n;
    }

    long takeLinesSeen() {
        long n = linesSeen;
        linesSeen = 0;
        return n;
    }

    Watermark watermark() {
        return new Watermark(
                committed,
                key.inode(),
                key.device(),
                fingerprint.complete() && committed > 0 ? fingerprint.hex() : null,
                fingerprint.complete() && committed > 0 ? fingerprint.bytes() : 0,
                size);
    }

    PublishedJournal.Key journalKey() {
        return new PublishedJournal.Key(key.device(), key.inode(), fingerprint.hash());
    }

    void renamed(String newPath) {
        path = newPath;
        source = buildSource();
    }

    private SourceFile buildSource() {
        return new SourceFile(
                path,
                host,
                RecordId.fileScope(host, key.device(), key.inode(), fingerprint.hex()),
                service,
                key.device() + ":" + key.inode() + ":" + fingerprint.hex(),
                kubernetesFields);
    }

    String path() {
        return path;
    }

    FileKey key() {
        return key;
    }

    SourceFile source() {
        return source;
    }

    long committed() {
        return committed;
    }

    long lagBytes() {
        return Math.max(0, size - committed);
    }

    boolean reachedEof() {
        return reachedEof;
    }

    void follows(Tailer previous) {
        predecessor = previous;
    }

    /** A successor of a rotated file waits until the old file was read to its end (drain before switching, docs/watermarks-and-restarts.md). */
    boolean waitsForPredecessor() {
        if (predecessor == null) {
            return false;
        }
        // A piece of a split container line held back by the old file goes out (whole or as a partial) first.
        if (predecessor.isClosed() || predecessor.reachedEof() && !predecessor.hasPendingPiece()) {
            predecessor = null;
            return false;
        }
        return true;
    }

    void markSeen() {
        unseenSinceNanos = -1;
    }

    void markUnseen(long now) {
        if (unseenSinceNanos < 0) {
            unseenSinceNanos = now;
        }
    }

    boolean isUnseen() {
        return unseenSinceNanos >= 0;
    }

    long unseenSinceNanos() {
        return unseenSinceNanos;
    }

    boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
