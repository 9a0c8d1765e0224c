package dev.logpipe.index.store.write;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.ShardMetadata;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The storage engine under the indexer and the query service; nothing above it sees Lucene (or, later, OpenSearch).
 *
 * <p>Writes are upserts keyed by (tenant, record_id): a shard holds one tenant, and a record_id written again replaces
 * its document. A write is visible to searchers opened after the next {@link #refresh} and durable after the next
 * {@link #commit}, which stores the given Kafka offsets atomically with the data. {@code write*}, {@code rollback}
 * and {@code closeIdle} are called from one thread (the indexer's consumer), {@code commit} from it or from the one
 * thread it hands commits to (writes may go on meanwhile); {@code refresh}, {@code backlog},
 * {@code location} and {@code metadata} from any thread.
 */
public interface ShardStore extends Closeable {
    /**
     * Upserts records into a shard, creating it on first use. A record the engine refuses (a value it cannot index, or
     * any failure of that one record's document while the engine stays healthy) is left out and returned with the
     * reason; the others are written. A failure of the engine itself (a disk error, a writer closed) is thrown. A structured field past the shard's cap on
     * distinct names is written in the record's source but not indexed, and counted.
     */
    Written write(ShardId shard, List<IndexRecord> batch) throws IOException;

    /**
     * Upserts the batches of several shards, each as {@link #write} does (the same refusals, returned per shard), in
     * the grouping the engine handles best: one whose one request can carry several indices (OpenSearch's
     * {@code _bulk}) sends them together, so the engine writes its indices in parallel on its side instead of one
     * after the other. A failure of the engine itself is a {@link WriteFailed} naming the shard being written, or
     * none when several were written at once. The default writes shard after shard.
     */
    default Map<ShardId, Written> writeAll(Map<ShardId, List<IndexRecord>> batches) throws WriteFailed {
        Map<ShardId, Written> written = new LinkedHashMap<>();
        for (Map.Entry<ShardId, List<IndexRecord>> e : batches.entrySet()) {
            try {
                written.put(e.getKey(), write(e.getKey(), e.getValue()));
            } catch (IOException | RuntimeException ex) {
                throw new WriteFailed(e.getKey(), location(e.getKey()), ex);
            }
        }
        return written;
    }

    /**
     * A poll's batches made ready for {@link #writeAll(Prepared)} ahead of the write, on another thread: what the engine
     * can build without touching itself (OpenSearch: the {@code _bulk} lines of every document), so the thread that
     * writes only sends. It holds its batches ({@link #batches}), so any engine can still write it.
     */
    interface Prepared {
        /** The batches prepared, by shard, in the order given. */
        Map<ShardId, List<IndexRecord>> batches();
    }

    /** Batches as they were given: the default {@link #prepare}, for engines that build nothing ahead. */
    record Unprepared(Map<ShardId, List<IndexRecord>> batches) implements Prepared {}

    /**
     * Builds ahead what {@link #writeAll(Prepared)} will send. Called from any thread, concurrently with writes; it
     * never reaches the engine and never fails for the engine's sake. The default prepares nothing.
     */
    default Prepared prepare(Map<ShardId, List<IndexRecord>> batches) {
        return new Unprepared(batches);
    }

    /**
     * Writes batches {@link #prepare}d earlier, exactly as {@link #writeAll(Map)} writes them (the same refusals, the
     * same failures). The default writes {@link Prepared#batches}.
     */
    default Map<ShardId, Written> writeAll(Prepared prepared) throws WriteFailed {
        return writeAll(prepared.batches());
    }

    /** The engine failed while {@link #writeAll} wrote: nothing of the batches is known to be written. */
    final class WriteFailed extends IOException {
        private final transient ShardId shard;
        private final String location;

        /**
         * @param shard the shard being written, or null when the engine was writing several at once
         * @param location where, for messages: the shard's {@link #location}, or what was being written
         */
        public WriteFailed(ShardId shard, String location, Throwable cause) {
            super(location + ": " + cause, cause);
            this.shard = shard;
            this.location = location;
        }

        /** The shard being written, or empty when several were written at once. */
        public Optional<ShardId> shard() {
            return Optional.ofNullable(shard);
        }

        public String location() {
            return location;
        }
    }

    /** The outcome of {@link #write}: the records refused, and how many field values were not indexed. */
    record Written(List<Rejection> rejections, long fieldsNotIndexed) {
        public Written {
            rejections = List.copyOf(rejections);
        }
    }

    /** Upserts dead letters into a dead-letter shard, creating it on first use; refusals as for {@link #write}. */
    List<Rejection> writeDeadLetters(ShardId shard, List<DeadLetterEntry> batch) throws IOException;

    /** A record of a batch that was not written: its index in the batch and why. */
    record Rejection(int index, String reason) {}

    /**
     * Makes every write so far durable: each shard written since its last commit writes its metadata, then commits
     * with {@code offsets} ({@code topic-partition} to the next offset to read) in its commit data. Returns only
     * when all are on disk, with the number of shards it committed; the caller commits the offsets to Kafka after
     * this, never before.
     */
    int commit(Map<String, Long> offsets) throws IOException;

    /**
     * Drops every write since the last commit, so that the caller can read them again from its last committed offsets
     * (after a failure of the engine). Does not throw: what cannot be released cleanly is logged.
     */
    void rollback();

    /** Releases what shards unused for {@code idle} hold (and any beyond the engine's cap); returns how many. */
    int closeIdle(Duration idle) throws IOException;

    /** Memory held by writes not yet flushed, and the budget for it: the indexer pauses intake while it is far over. */
    Backlog backlog();

    /** The bytes buffered for writes not yet flushed, and the engine's budget for them. */
    record Backlog(long bytes, long budgetBytes) {}

    /** Where a shard lives (a directory, an index name), for messages and the status API; the shard may not exist. */
    String location(ShardId shard);

    /** Makes every write that returned before this call visible to searchers opened after it returns. */
    void refresh() throws IOException;

    /** Closes a shard without committing and deletes its directory; false when it did not exist. */
    boolean delete(ShardId shard) throws IOException;

    /**
     * True when the shard holds writes its last commit does not cover yet: deleting it now would drop records whose
     * Kafka offsets the next commit would then acknowledge (the archiver asks before it deletes a day it absorbed).
     */
    boolean uncommitted(ShardId shard);

    /** Every shard of a kind on disk. */
    List<ShardId> shards(ShardKind kind) throws IOException;

    /** A shard's metadata file, read without opening the index. */
    Optional<ShardMetadata> metadata(ShardId shard) throws IOException;

    /** The offsets stored with the shard's last commit (empty for a shard never committed). */
    Map<String, Long> committedOffsets(ShardId shard) throws IOException;
}
