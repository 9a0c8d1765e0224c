package dev.logpipe.forwarder.internal.watermark;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A memory-mapped record of how far each open file has been published, written on every sink
 * acknowledgement without fsync. The page cache survives a {@code kill -9}, so after a process crash
 * the next run knows exactly which re-read lines were already published and counts them in
 * {@code log_forwarder_lines_replayed_total}. After an OS crash the journal may be stale; then replays
 * are under-counted, never lines lost: the journal is advisory and never decides where reading starts.
 *
 * <p>Layout: 16-byte header (magic, version, slot count), then 32-byte slots of
 * (device, inode, fingerprint, published offset). Confined to the pipeline thread.
 */
public final class PublishedJournal implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(PublishedJournal.class);
    private static final int MAGIC = 0x4C50504A; // "LPPJ"
    private static final int VERSION = 1;
    private static final int HEADER = 16;
    private static final int SLOT = 32;

    private final FileChannel channel;
    private final MappedByteBuffer map;
    private final int slots;
    private final Map<Key, Long> previousRun;
    private final Map<Key, Integer> slotOf = new HashMap<>();
    private final ArrayDeque<Integer> freed = new ArrayDeque<>();
    private boolean warnedFull;

    /** Identity of a file in the journal. */
    public record Key(long device, long inode, long fingerprint) {}

    private PublishedJournal(
            FileChannel channel,
            MappedByteBuffer map,
            int slots,
            Map<Key, Long> previousRun,
            Map<Key, Integer> slotOf,
            ArrayDeque<Integer> free) {
        this.channel = channel;
        this.map = map;
        this.slots = slots;
        this.previousRun = previousRun;
        this.slotOf.putAll(slotOf);
        this.freed.addAll(free);
    }

    /** Forgets the previous run's entries for files other than {@code keep} (called after the first scan). */
    public void retainOnly(Set<Key> keep) {
        for (Key k : new ArrayList<>(slotOf.keySet())) {
            if (!keep.contains(k)) {
                release(k);
            }
        }
    }

    /**
     * Opens the journal and remembers what the previous run had published. Earlier entries stay in place
     * until {@link #retainOnly} drops those of files this run does not tail, so a run that crashes before
     * re-publishing a file does not erase what the next run needs to count.
     */
    public static PublishedJournal open(Path file, int slots) throws IOException {
        long size = HEADER + (long) slots * SLOT;
        FileChannel ch =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            Map<Key, Long> previous = new HashMap<>();
            Map<Key, Integer> slotOf = new HashMap<>();
            long existing = ch.size();
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            map.order(ByteOrder.LITTLE_ENDIAN);
            boolean valid =
                    existing >= HEADER && map.getInt(0) == MAGIC && map.getInt(4) == VERSION && map.getInt(8) == slots;
            if (!valid) {
                if (existing > 0) {
                    log.warn(
                            "published-offsets journal {} is not in the expected format; starting it afresh "
                                    + "(only the replay count of this restart is affected)",
                            file);
                }
                for (long p = 0; p < size; p += 8) {
                    map.putLong((int) p, 0L);
                }
                map.putInt(0, MAGIC);
                map.putInt(4, VERSION);
                map.putInt(8, slots);
            }
            ArrayDeque<Integer> free = new ArrayDeque<>();
            for (int i = slots - 1; i >= 0; i--) {
                int base = HEADER + i * SLOT;
                long dev = map.getLong(base);
                long ino = map.getLong(base + 8);
                if (dev == 0 && ino == 0) {
                    free.push(i);
                    continue;
                }
                Key key = new Key(dev, ino, map.getLong(base + 16));
                previous.put(key, map.getLong(base + 24));
                slotOf.put(key, i);
            }
            return new PublishedJournal(ch, map, slots, previous, slotOf, free);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** The offset the previous run had published for this file, or -1 if it is not known. */
    public long previouslyPublished(Key key) {
        Long v = previousRun.get(key);
        return v == null ? -1 : v;
    }

    /** Records that this file has been published up to {@code offset}. */
    public void published(Key key, long offset) {
        Integer slot = slotOf.get(key);
        if (slot == null) {
            slot = claim(key);
            if (slot == null) {
                return;
            }
        }
        map.putLong(HEADER + slot * SLOT + 24, offset);
    }

    /** Forgets a file that is no longer tailed. */
    public void release(Key key) {
        Integer slot = slotOf.remove(key);
        if (slot != null) {
            int base = HEADER + slot * SLOT;
            for (int i = 0; i < SLOT; i += 8) {
                map.putLong(base + i, 0L);
            }
            freed.push(slot);
        }
    }

    private Integer claim(Key key) {
        Integer slot = freed.isEmpty() ? null : freed.pop();
        if (slot == null) {
            if (!warnedFull) {
                warnedFull = true;
                log.warn(
                        "published-offsets journal is full ({} files); replays of further files are not counted "
                                + "after a crash",
                        slots);
            }
            return null;
        }
        int base = HEADER + slot * SLOT;
        map.putLong(base, key.device());
        map.putLong(base + 8, key.inode());
        map.putLong(base + 16, key.fingerprint());
        slotOf.put(key, slot);
        return slot;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
