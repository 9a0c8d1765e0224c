package dev.logpipe.archive.format;

import dev.logpipe.index.shard.ShardId;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What an archive says of itself, read with one ranged read of its tail (docs/archive-format.md#footer): the day it
 * holds, its record count, time range and {@link DayDigest}, and per block where it lies, its checksum, its time range,
 * its label values and where its token filter lies.
 *
 * @param format the format it was written in (1 or 2: {@link Column#count})
 * @param minEventTimeMillis the oldest record's event time ({@link Long#MAX_VALUE} when empty)
 * @param maxEventTimeMillis the newest record's event time ({@link Long#MIN_VALUE} when empty)
 * @param sourceBytes the UTF-8 bytes of every record's source (the raw text archived)
 */
public record ArchiveFooter(
        int format,
        ShardId day,
        long records,
        long minEventTimeMillis,
        long maxEventTimeMillis,
        long sourceBytes,
        String digest,
        List<BlockInfo> blocks) {
    public ArchiveFooter {
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(digest, "digest");
        blocks = List.copyOf(blocks);
    }

    /**
     * One block: its bytes [{@code offset}, {@code offset + length}) and their CRC-32C, its records and their time
     * range, each column's compressed and raw length (in {@link Column} order), the distinct values of each
     * {@link Label} (a label in {@code truncatedLabels} lists only some), and its token filter's bytes and CRC-32C.
     */
    public record BlockInfo(
            long offset,
            int length,
            int crc,
            int records,
            long minEventTimeMillis,
            long maxEventTimeMillis,
            int[] compressedLengths,
            int[] rawLengths,
            Map<Label, SortedSet<String>> labels,
            SortedSet<Label> truncatedLabels,
            long filterOffset,
            int filterLength,
            int filterCrc) {
        public BlockInfo {
            compressedLengths = compressedLengths.clone();
            rawLengths = rawLengths.clone();
            Map<Label, SortedSet<String>> copy = new EnumMap<>(Label.class);
            labels.forEach((k, v) -> copy.put(k, new TreeSet<>(v)));
            labels = copy;
            truncatedLabels = new TreeSet<>(truncatedLabels);
        }

        /** Raw (decompressed) bytes of the block: what a scan decompresses. */
        public long rawBytes() {
            long n = 0;
            for (int r : rawLengths) {
                n += r;
            }
            return n;
        }

        /** False when no record of the block can have {@code value} as its {@code label}. */
        public boolean mayHold(Label label, String value) {
            return truncatedLabels.contains(label)
                    || labels.getOrDefault(label, new TreeSet<>()).contains(value);
        }
    }

    byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(format);
            out.writeUTF(day.kind().name());
            out.writeUTF(day.tenant());
            out.writeUTF(day.day().toString());
            out.writeLong(records);
            out.writeLong(minEventTimeMillis);
            out.writeLong(maxEventTimeMillis);
            out.writeLong(sourceBytes);
            out.writeUTF(digest);
            out.writeInt(blocks.size());
            for (BlockInfo b : blocks) {
                out.writeLong(b.offset);
                out.writeInt(b.length);
                out.writeInt(b.crc);
                out.writeInt(b.records);
                out.writeLong(b.minEventTimeMillis);
                out.writeLong(b.maxEventTimeMillis);
                out.writeInt(b.compressedLengths.length);
                for (int i = 0; i < b.compressedLengths.length; i++) {
                    out.writeInt(b.compressedLengths[i]);
                    out.writeInt(b.rawLengths[i]);
                }
                out.writeInt(b.labels.size());
                for (Map.Entry<Label, SortedSet<String>> e : b.labels.entrySet()) {
                    out.writeUTF(e.getKey().name());
                    out.writeBoolean(b.truncatedLabels.contains(e.getKey()));
                    out.writeInt(e.getValue().size());
                    for (String v : e.getValue()) {
                        out.writeUTF(v);
                    }
                }
                out.writeLong(b.filterOffset);
                out.writeInt(b.filterLength);
                out.writeInt(b.filterCrc);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    static ArchiveFooter fromBytes(DataInputStream in) throws IOException {
        int format = in.readInt();
        if (format < 1 || format > ArchiveWriter.FORMAT) {
            throw new IOException("footer of format " + format + ", this build reads 1 to " + ArchiveWriter.FORMAT);
        }
        ShardId day = new ShardId(
                dev.logpipe.index.shard.ShardKind.valueOf(in.readUTF()), in.readUTF(), LocalDate.parse(in.readUTF()));
        long records = in.readLong();
        long min = in.readLong();
        long max = in.readLong();
        long sourceBytes = in.readLong();
        String digest = in.readUTF();
        int n = in.readInt();
        List<BlockInfo> blocks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long offset = in.readLong();
            int length = in.readInt();
            int crc = in.readInt();
            int count = in.readInt();
            long bmin = in.readLong();
            long bmax = in.readLong();
            int columns = in.readInt();
            if (columns != Column.count(format)) {
                throw new IOException("block " + i + " has " + columns + " columns, format " + format + " has "
                        + Column.count(format));
            }
            int[] compressed = new int[columns];
            int[] raw = new int[columns];
            for (int c = 0; c < columns; c++) {
                compressed[c] = in.readInt();
                raw[c] = in.readInt();
            }
            int labelCount = in.readInt();
            Map<Label, SortedSet<String>> labels = new EnumMap<>(Label.class);
            SortedSet<Label> truncated = new TreeSet<>();
            for (int l = 0; l < labelCount; l++) {
                Label label = Label.valueOf(in.readUTF());
                if (in.readBoolean()) {
                    truncated.add(label);
                }
                int values = in.readInt();
                SortedSet<String> vs = new TreeSet<>();
                for (int v = 0; v < values; v++) {
                    vs.add(in.readUTF());
                }
                labels.put(label, vs);
            }
            blocks.add(new BlockInfo(
                    offset,
                    length,
                    crc,
                    count,
                    bmin,
                    bmax,
                    compressed,
                    raw,
                    labels,
                    truncated,
                    in.readLong(),
                    in.readInt(),
                    in.readInt()));
        }
        return new ArchiveFooter(format, day, records, min, max, sourceBytes, digest, blocks);
    }
}
