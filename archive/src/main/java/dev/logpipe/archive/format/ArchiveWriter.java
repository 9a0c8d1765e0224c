package dev.logpipe.archive.format;

import com.carrotsearch.hppc.LongHashSet;
import com.github.luben.zstd.Zstd;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.LogRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.zip.CRC32C;

/**
 * Writes one day of one tenant as an archive (docs/archive-format.md): records must come in the read seam's
 * {@code OLDEST_FIRST} order (event time ascending, then record id descending as unsigned UTF-8 bytes: the exact
 * reverse of {@code NEWEST_FIRST}), each id once; they are cut into blocks of about
 * {@link Settings#blockSourceBytes} of source, each column compressed with zstd, then the footer and the trailer. A
 * source that the record codec's encoding of its decoded record reproduces byte for byte is kept as columns and
 * rebuilt on read ({@link SourceRebuild}); any other is stored as it came.
 * {@link #finish} returns the footer; the stream is the caller's to close. Not thread-safe.
 */
public final class ArchiveWriter {
    /** The format version written in the footer. */
    public static final int FORMAT = 2;

    static final byte[] HEADER_MAGIC = "LPARCHV1".getBytes(StandardCharsets.US_ASCII);
    static final byte[] TRAILER_MAGIC = "LPAREND1".getBytes(StandardCharsets.US_ASCII);
    /** footer length (4), footer CRC-32C (4), magic (8). */
    static final int TRAILER_LENGTH = 16;

    /**
     * @param blockSourceBytes a block is cut once its sources reach this many bytes
     * @param zstdLevel the zstd level of every column
     */
    public record Settings(int blockSourceBytes, int zstdLevel) {
        public static final Settings DEFAULTS = new Settings(1 << 20, 3);

        public Settings {
            if (blockSourceBytes < 1) {
                throw new IllegalArgumentException("blockSourceBytes must be >= 1, was " + blockSourceBytes);
            }
            if (zstdLevel < 1 || zstdLevel > 22) {
                throw new IllegalArgumentException("zstdLevel must be in 1..22, was " + zstdLevel);
            }
        }
    }

    private final ShardId day;
    private final Settings settings;
    private final OutputStream out;
    private final DayDigest digest = new DayDigest();
    private final Bytes[] columns = new Bytes[Column.values().length];
    private final LongHashSet tokens = new LongHashSet();
    private final List<String> blockMessages = new ArrayList<>();
    private final JsonBuffer scratch = new JsonBuffer(4096);
    private final Map<Label, SortedSet<String>> labels = new EnumMap<>(Label.class);
    private final Set<Label> truncated = new HashSet<>();
    private final List<ArchiveFooter.BlockInfo> blocks = new ArrayList<>();
    private long position;
    private long records;
    private long sourceBytes;
    private long rebuilt;
    private long minTime = Long.MAX_VALUE;
    private long maxTime = Long.MIN_VALUE;
    private int blockRecords;
    private long blockMin;
    private long blockMax;
    private long blockSource;
    private long lastTime = Long.MIN_VALUE;
    private IdBytes lastId;
    private boolean finished;

    public ArchiveWriter(ShardId day, Settings settings, OutputStream out) throws IOException {
        this.day = Objects.requireNonNull(day, "day");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.out = Objects.requireNonNull(out, "out");
        for (int i = 0; i < columns.length; i++) {
            columns[i] = new Bytes(4096);
        }
        write(HEADER_MAGIC);
    }

    /**
     * Adds the next record; {@code decoded} is its source decoded (the token filter is built from its message and
     * fields).
     *
     * @throws IllegalArgumentException out of merge order, or a record id seen just before at the same time
     */
    public void add(ArchivedRecord r, LogRecord decoded) throws IOException {
        if (finished) {
            throw new IllegalStateException("archive of " + day + " already finished");
        }
        IdBytes id = IdBytes.of(r.recordId());
        if (lastId != null
                && (r.eventTimeMillis() < lastTime || (r.eventTimeMillis() == lastTime && id.compareTo(lastId) >= 0))) {
            throw new IllegalArgumentException(
                    "records must come oldest first (ids descending within a time), each id once: " + r.recordId()
                            + " at " + r.eventTimeMillis() + " after " + lastId + " at " + lastTime);
        }
        long previous = blockRecords == 0 ? 0 : lastTime;
        lastTime = r.eventTimeMillis();
        lastId = id;
        if (blockRecords == 0) {
            blockMin = r.eventTimeMillis();
        }
        blockMax = r.eventTimeMillis();
        columns[Column.EVENT_TIME.ordinal()].zigzag(r.eventTimeMillis() - previous);
        columns[Column.OBSERVED_TIME.ordinal()].zigzag(r.observedTimeMillis() - r.eventTimeMillis());
        columns[Column.RECORD_ID.ordinal()].string(r.recordId());
        columns[Column.LEVEL.ordinal()].add((byte) r.level().ordinal());
        columns[Column.SERVICE.ordinal()].string(r.service());
        columns[Column.INSTANCE_ID.ordinal()].string(r.instanceId());
        columns[Column.REGION.ordinal()].string(r.region());
        columns[Column.TRACE_ID.ordinal()].string(r.traceId());
        columns[Column.SPAN_ID.ordinal()].string(r.spanId());
        byte[] source = r.source().getBytes(StandardCharsets.UTF_8);
        SourceRebuild.Parts parts = SourceRebuild.partsOf(day.tenant(), r, decoded, source, scratch);
        if (parts == null) {
            columns[Column.SOURCE.ordinal()].string(r.source());
        } else {
            columns[Column.SOURCE.ordinal()].string(null);
            SourceRebuild.write(parts, columns[Column.REBUILD.ordinal()], columns[Column.FIELDS.ordinal()]);
            blockMessages.add(parts.message());
            rebuilt++;
        }
        for (Label label : Label.values()) {
            String v = label.of(r);
            if (v == null || truncated.contains(label)) {
                continue;
            }
            SortedSet<String> vs = labels.computeIfAbsent(label, l -> new TreeSet<>());
            if (v.length() > Label.MAX_VALUE_LENGTH || (vs.size() >= Label.MAX_VALUES && !vs.contains(v))) {
                truncated.add(label);
                vs.clear();
            } else {
                vs.add(v);
            }
        }
        Tokens.addAll(decoded, tokens);
        digest.add(r.eventTimeMillis(), r.recordId(), source);
        blockSource += source.length;
        sourceBytes += source.length;
        blockRecords++;
        records++;
        minTime = Math.min(minTime, r.eventTimeMillis());
        maxTime = Math.max(maxTime, r.eventTimeMillis());
        if (blockSource >= settings.blockSourceBytes()) {
            flushBlock();
        }
    }

    /** How many of the records so far are kept as columns their source is rebuilt from (the rest verbatim). */
    public long rebuiltRecords() {
        return rebuilt;
    }

    /** Writes the last block, the footer and the trailer, flushes, and returns the footer. */
    public ArchiveFooter finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("archive of " + day + " already finished");
        }
        flushBlock();
        finished = true;
        ArchiveFooter footer =
                new ArchiveFooter(FORMAT, day, records, minTime, maxTime, sourceBytes, digest.hex(), blocks);
        byte[] bytes = footer.toBytes();
        write(bytes);
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER_LENGTH);
        trailer.putInt(bytes.length).putInt(crc(bytes, 0, bytes.length)).put(TRAILER_MAGIC);
        write(trailer.array());
        out.flush();
        return footer;
    }

    private void flushBlock() throws IOException {
        if (blockRecords == 0) {
            return;
        }
        MessageColumns.write(
                blockMessages,
                columns[Column.MESSAGE.ordinal()],
                columns[Column.LITERALS.ordinal()],
                columns[Column.NUMBERS.ordinal()]);
        blockMessages.clear();
        long offset = position;
        CRC32C crc = new CRC32C();
        int[] compressed = new int[columns.length];
        int[] raw = new int[columns.length];
        int length = 0;
        for (int i = 0; i < columns.length; i++) {
            byte[] plain = columns[i].toArray();
            byte[] z = Zstd.compress(plain, settings.zstdLevel());
            raw[i] = plain.length;
            compressed[i] = z.length;
            crc.update(z);
            write(z);
            length += z.length;
            columns[i].clear();
        }
        byte[] filter = TokenFilter.ofHashes(tokens).toBytes();
        long filterOffset = position;
        write(filter);
        blocks.add(new ArchiveFooter.BlockInfo(
                offset,
                length,
                (int) crc.getValue(),
                blockRecords,
                blockMin,
                blockMax,
                compressed,
                raw,
                labels,
                new TreeSet<>(truncated),
                filterOffset,
                filter.length,
                crc(filter, 0, filter.length)));
        tokens.clear();
        labels.clear();
        truncated.clear();
        blockRecords = 0;
        blockSource = 0;
    }

    private void write(byte[] b) throws IOException {
        out.write(b);
        position += b.length;
    }

    static int crc(byte[] b, int off, int len) {
        CRC32C crc = new CRC32C();
        crc.update(b, off, len);
        return (int) crc.getValue();
    }
}
