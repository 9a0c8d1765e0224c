package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.ArchiveReader;
import dev.logpipe.archive.format.Block;
import dev.logpipe.archive.format.CorruptArchiveException;
import dev.logpipe.archive.format.DayDigest;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.index.store.write.IndexRecord;
import java.io.IOException;
import java.time.Instant;

/**
 * Reads a catalogued day's archive back as the records the hot store takes ({@link IndexRecord}s, in archive order):
 * for a restore into the query's cache or into the hot tier. Every block is checked by its checksum as it is read,
 * and the whole day against the catalog's record count and digest at the end, so a restore never completes from an
 * archive that differs from what was verified when it was written.
 */
final class ArchivedDayRecords {

    /** Takes each record; may throw to stop the read. */
    interface Sink {
        void accept(IndexRecord record) throws IOException;
    }

    private ArchivedDayRecords() {}

    /**
     * @throws CorruptArchiveException a block fails its checksum or the day differs from its catalog entry
     * @throws IOException             the object store fails, or a source does not decode (the archive is named)
     */
    static void read(ObjectStore objects, CatalogEntry entry, Sink sink) throws IOException {
        ArchiveReader reader = ArchiveReader.open(entry.key(), objects.open(entry.key()));
        DayDigest digest = new DayDigest();
        for (int b = 0; b < reader.footer().blocks().size(); b++) {
            Block block = reader.block(b);
            for (int i = 0; i < block.size(); i++) {
                IndexRecord r = record(block, i);
                digest.add(block.eventTimeMillis(i), block.recordId(i), r.source());
                sink.accept(r);
            }
        }
        if (digest.records() != entry.records() || !digest.hex().equals(entry.digest())) {
            throw new CorruptArchiveException(
                    entry.key(),
                    "holds " + digest.records() + " records with digest " + digest.hex() + ", the catalog says "
                            + entry.records() + " with " + entry.digest());
        }
    }

    /** The records of the blocks {@code blocks} of the day's archive, each block checked by its CRC. */
    static void readBlocks(ObjectStore objects, CatalogEntry entry, java.util.BitSet blocks, Sink sink)
            throws IOException {
        ArchiveReader reader = ArchiveReader.open(entry.key(), objects.open(entry.key()));
        for (int b = blocks.nextSetBit(0); b >= 0; b = blocks.nextSetBit(b + 1)) {
            Block block = reader.block(b);
            for (int i = 0; i < block.size(); i++) {
                sink.accept(record(block, i));
            }
        }
    }

    private static IndexRecord record(Block block, int i) throws IOException {
        byte[] source = block.sourceUtf8(i);
        Instant eventTime = Instant.ofEpochMilli(block.eventTimeMillis(i));
        Instant observed = Instant.ofEpochMilli(block.observedTimeMillis(i));
        return new IndexRecord(block.decoded(i), eventTime, observed, source, 0, source.length);
    }
}
