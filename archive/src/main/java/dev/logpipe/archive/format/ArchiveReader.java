package dev.logpipe.archive.format;

import com.github.luben.zstd.Zstd;
import dev.logpipe.record.Level;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Reads an archive through ranged reads (docs/archive-format.md): {@link #open} reads the footer with one read of the
 * tail (two when the footer is larger than {@link #TAIL_GUESS}); {@link #filter} and {@link #block} each read one
 * range and check its CRC-32C first. Any mismatch is a {@link CorruptArchiveException} naming the archive and the part.
 * Thread-safe (its state is the immutable footer).
 */
public final class ArchiveReader {
    /** How many bytes of the tail {@link #open} reads at once. */
    public static final int TAIL_GUESS = 256 << 10;

    private static final Level[] LEVELS = Level.values();

    private final String name;
    private final RangeSource source;
    private final ArchiveFooter footer;
    private final long size;

    private ArchiveReader(String name, RangeSource source, ArchiveFooter footer, long size) {
        this.name = name;
        this.source = source;
        this.footer = footer;
        this.size = size;
    }

    /** Opens the archive {@code name} (its object key, for messages) and reads its footer. */
    public static ArchiveReader open(String name, RangeSource source) throws IOException {
        Objects.requireNonNull(name, "name");
        long size = source.size();
        int minimum = ArchiveWriter.HEADER_MAGIC.length + ArchiveWriter.TRAILER_LENGTH;
        if (size < minimum) {
            throw new CorruptArchiveException(name, "only " + size + " bytes, shorter than header and trailer");
        }
        int tailLength = (int) Math.min(size, TAIL_GUESS);
        byte[] tail = source.read(size - tailLength, tailLength);
        ByteBuffer trailer =
                ByteBuffer.wrap(tail, tail.length - ArchiveWriter.TRAILER_LENGTH, ArchiveWriter.TRAILER_LENGTH);
        int footerLength = trailer.getInt();
        int footerCrc = trailer.getInt();
        byte[] magic = new byte[8];
        trailer.get(magic);
        if (!Arrays.equals(magic, ArchiveWriter.TRAILER_MAGIC)) {
            throw new CorruptArchiveException(name, "no trailer (a partial upload, or not an archive)");
        }
        if (footerLength < 0 || footerLength > size - minimum) {
            throw new CorruptArchiveException(
                    name, "footer length " + footerLength + " does not fit " + size + " bytes");
        }
        byte[] footerBytes;
        int footerStart = tail.length - ArchiveWriter.TRAILER_LENGTH - footerLength;
        if (footerStart >= 0) {
            footerBytes = Arrays.copyOfRange(tail, footerStart, footerStart + footerLength);
        } else {
            footerBytes = source.read(size - ArchiveWriter.TRAILER_LENGTH - footerLength, footerLength);
        }
        if (ArchiveWriter.crc(footerBytes, 0, footerLength) != footerCrc) {
            throw new CorruptArchiveException(name, "footer checksum mismatch");
        }
        ArchiveFooter footer;
        try {
            footer = ArchiveFooter.fromBytes(new DataInputStream(new ByteArrayInputStream(footerBytes)));
        } catch (IOException | RuntimeException e) {
            throw new CorruptArchiveException(name, "footer unreadable: " + e.getMessage(), e);
        }
        return new ArchiveReader(name, source, footer, size);
    }

    public String name() {
        return name;
    }

    public ArchiveFooter footer() {
        return footer;
    }

    /** The archive's length in bytes. */
    public long size() {
        return size;
    }

    /** The token filter of block {@code index}. */
    public TokenFilter filter(int index) throws IOException {
        ArchiveFooter.BlockInfo b = footer.blocks().get(index);
        byte[] bytes = checkedRead(b.filterOffset(), b.filterLength(), b.filterCrc(), "token filter of block " + index);
        try {
            return TokenFilter.fromBytes(bytes);
        } catch (RuntimeException e) {
            throw new CorruptArchiveException(name, "token filter of block " + index + ": " + e.getMessage(), e);
        }
    }

    /** The compressed bytes of block {@code index}, checked: what a block cache keeps. */
    public byte[] blockBytes(int index) throws IOException {
        ArchiveFooter.BlockInfo b = footer.blocks().get(index);
        return checkedRead(b.offset(), b.length(), b.crc(), "block " + index);
    }

    /** Block {@code index}, read, checked and decoded. */
    public Block block(int index) throws IOException {
        return decode(index, blockBytes(index));
    }

    /** Event times and levels of one block's records, in block order: what a count or histogram reads. */
    public record TimesAndLevels(long[] eventTimes, Level[] levels) {}

    /**
     * The event times and levels of block {@code index}: the whole block read and checked, only its first and level
     * columns decompressed (a count or histogram over blocks without the cost of their sources).
     */
    public TimesAndLevels timesAndLevels(int index) throws IOException {
        byte[] bytes = blockBytes(index);
        ArchiveFooter.BlockInfo b = footer.blocks().get(index);
        try {
            byte[] times = column(bytes, b, Column.EVENT_TIME);
            byte[] levelBytes = column(bytes, b, Column.LEVEL);
            Bytes.Reader t = new Bytes.Reader(times);
            Bytes.Reader l = new Bytes.Reader(levelBytes);
            long[] eventTimes = new long[b.records()];
            Level[] levels = new Level[b.records()];
            long time = 0;
            for (int i = 0; i < b.records(); i++) {
                time += t.zigzag();
                eventTimes[i] = time;
                levels[i] = LEVELS[l.next()];
            }
            return new TimesAndLevels(eventTimes, levels);
        } catch (RuntimeException e) { // zstd, a column cut short or holding nonsense
            throw new CorruptArchiveException(name, "block " + index + " undecodable: " + e.getMessage(), e);
        }
    }

    private static byte[] column(byte[] bytes, ArchiveFooter.BlockInfo b, Column c) {
        int at = 0;
        for (int i = 0; i < c.ordinal(); i++) {
            at += b.compressedLengths()[i];
        }
        int len = b.compressedLengths()[c.ordinal()];
        byte[] plain = Zstd.decompress(Arrays.copyOfRange(bytes, at, at + len), b.rawLengths()[c.ordinal()]);
        if (plain.length != b.rawLengths()[c.ordinal()]) {
            throw new IllegalArgumentException(
                    c + " decompressed to " + plain.length + " bytes, expected " + b.rawLengths()[c.ordinal()]);
        }
        return plain;
    }

    /** Decodes block {@code index} from its compressed bytes (from {@link #blockBytes}, or a cache of them). */
    public Block decode(int index, byte[] bytes) throws IOException {
        ArchiveFooter.BlockInfo b = footer.blocks().get(index);
        if (bytes.length != b.length() || ArchiveWriter.crc(bytes, 0, bytes.length) != b.crc()) {
            throw new CorruptArchiveException(name, "block " + index + " checksum mismatch");
        }
        Block block = new Block(name, footer.day().tenant(), index, b.records());
        int at = 0;
        try {
            int count = Column.count(footer.format());
            Bytes.Reader[] columns = new Bytes.Reader[count];
            for (int c = 0; c < count; c++) {
                int len = b.compressedLengths()[c];
                byte[] plain = Zstd.decompress(Arrays.copyOfRange(bytes, at, at + len), b.rawLengths()[c]);
                if (plain.length != b.rawLengths()[c]) {
                    throw new IllegalArgumentException(Column.values()[c] + " decompressed to " + plain.length
                            + " bytes, expected " + b.rawLengths()[c]);
                }
                columns[c] = new Bytes.Reader(plain);
                at += len;
            }
            if (count > Column.FORMAT_1_COLUMNS) {
                block.fieldsColumn = columns[Column.FIELDS.ordinal()].bytes();
            }
            MessageColumns.Reader messages = count > Column.FORMAT_1_COLUMNS
                    ? new MessageColumns.Reader(
                            columns[Column.MESSAGE.ordinal()],
                            columns[Column.LITERALS.ordinal()],
                            columns[Column.NUMBERS.ordinal()])
                    : null;
            long time = 0;
            for (int i = 0; i < b.records(); i++) {
                time += columns[Column.EVENT_TIME.ordinal()].zigzag();
                block.eventTimes[i] = time;
                block.observedTimes[i] = time + columns[Column.OBSERVED_TIME.ordinal()].zigzag();
                block.recordIds[i] = columns[Column.RECORD_ID.ordinal()].string();
                block.levels[i] = LEVELS[columns[Column.LEVEL.ordinal()].next()];
                block.services[i] = columns[Column.SERVICE.ordinal()].string();
                block.instanceIds[i] = columns[Column.INSTANCE_ID.ordinal()].string();
                block.regions[i] = columns[Column.REGION.ordinal()].string();
                block.traceIds[i] = columns[Column.TRACE_ID.ordinal()].string();
                block.spanIds[i] = columns[Column.SPAN_ID.ordinal()].string();
                if (block.recordIds[i] == null) {
                    throw new IllegalArgumentException("record " + i + " has no id");
                }
                block.sources[i] = columns[Column.SOURCE.ordinal()].string();
                if (block.sources[i] == null && messages != null) {
                    SourceRebuild.Pending p = SourceRebuild.readPending(
                            columns[Column.REBUILD.ordinal()], messages, columns[Column.FIELDS.ordinal()]);
                    SourceRebuild.checkTimes(time, block.observedTimes[i], p); // the record, made later, can be
                    block.pending[i] = p;
                } else if (block.sources[i] == null) {
                    throw new IllegalArgumentException("record " + i + " has no source");
                }
            }
            for (Bytes.Reader column : columns) {
                if (!column.atEnd()) {
                    throw new IllegalArgumentException("a column holds more than " + b.records() + " records");
                }
            }
        } catch (RuntimeException e) { // zstd, a column cut short or holding nonsense: the block is damaged
            throw new CorruptArchiveException(name, "block " + index + " undecodable: " + e, e);
        }
        return block;
    }

    /**
     * Reads every block and checks the records against the footer: their count and their {@link DayDigest}. Returns
     * the digest (equal to the footer's).
     */
    public String verify() throws IOException {
        DayDigest digest = new DayDigest();
        for (int i = 0; i < footer.blocks().size(); i++) {
            Block b = block(i);
            for (int r = 0; r < b.size(); r++) {
                digest.add(b.eventTimeMillis(r), b.recordId(r), b.sourceUtf8(r));
            }
        }
        String hex = digest.hex();
        if (digest.records() != footer.records()) {
            throw new CorruptArchiveException(
                    name, "blocks hold " + digest.records() + " records, the footer says " + footer.records());
        }
        if (!hex.equals(footer.digest())) {
            throw new CorruptArchiveException(name, "records' digest " + hex + " differs from the footer's");
        }
        return hex;
    }

    private byte[] checkedRead(long offset, int length, int crc, String what) throws IOException {
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new CorruptArchiveException(name, what + " at " + offset + "+" + length + " lies past " + size);
        }
        byte[] bytes = source.read(offset, length);
        CRC32C c = new CRC32C();
        c.update(bytes);
        if ((int) c.getValue() != crc) {
            throw new CorruptArchiveException(name, what + " checksum mismatch");
        }
        return bytes;
    }
}
