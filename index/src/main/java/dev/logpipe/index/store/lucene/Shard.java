package dev.logpipe.index.store.lucene;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.index.store.write.DeadLetterEntry;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.store.write.ShardStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * One open Lucene index of a shard: its writer, its near-real-time searchers, its metadata accumulator and, for a
 * shard that was empty when opened, the set of ids it holds (an unseen id is added without a delete). Writes come
 * from one thread; {@link #commit} may run on another thread at the same time as writes (the metadata accumulator is
 * guarded, dirtiness is a count of batches); {@link #refresh} and {@link #searchers} from any.
 *
 * <p>Its private constructor takes the parts open() made (directory, writer, metadata, id set, field names), once per
 * shard; no value groups them.
 */
final class Shard implements AutoCloseable {
    private final ShardId id;
    private final Path metadataFile;
    private final Directory directory;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final MetadataAccumulator metadata;
    private final IdSet fresh;
    private final IndexedFieldNames names;
    /** Batches written, and how many of them the last commit covers: dirty while they differ. */
    private final AtomicLong writes = new AtomicLong();

    private volatile long committedWrites;
    private volatile long lastUsedNanos = System.nanoTime();
    private volatile boolean closed;

    private Shard(
            ShardId id,
            Path metadataFile,
            Directory directory,
            IndexWriter writer,
            MetadataAccumulator metadata,
            IdSet fresh,
            IndexedFieldNames names)
            throws IOException {
        this.id = id;
        this.metadataFile = metadataFile;
        this.directory = directory;
        this.writer = writer;
        this.metadata = metadata;
        this.fresh = fresh;
        this.names = names;
        this.searchers = new SearcherManager(writer, null);
    }

    /**
     * Opens (or creates) the shard's index.
     *
     * @throws IOException the index or its metadata is corrupt or unreadable; the message names the directory
     */
    static Shard open(ShardLayout layout, ShardId id, StoreSettings settings, FieldNameBudget budget, int ramMb)
            throws IOException {
        Path dir = layout.luceneDir(id);
        Files.createDirectories(dir);
        Directory directory = FSDirectory.open(dir);
        try {
            boolean exists = DirectoryReader.indexExists(directory);
            ShardMetadata start;
            if (exists) {
                SegmentInfos.readLatestCommit(directory); // checksummed: a corrupt commit fails here
                start = ShardMetadata.read(layout.metadataFile(id))
                        .orElseThrow(() -> new IOException(
                                "shard " + layout.shardDir(id) + " has an index but no " + ShardLayout.METADATA_FILE));
            } else {
                start = ShardMetadata.read(layout.metadataFile(id)).orElse(ShardMetadata.empty(id));
            }
            IndexWriterConfig config = new IndexWriterConfig(IndexSchema.indexAnalyzer())
                    .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
                    .setIndexSort(IndexSchema.indexSort())
                    .setRAMBufferSizeMB(ramMb)
                    .setCommitOnClose(false)
                    .setCodec(new Lucene912Codec(
                            settings.compression() == StoreSettings.Compression.BEST_COMPRESSION
                                    ? Lucene912Codec.Mode.BEST_COMPRESSION
                                    : Lucene912Codec.Mode.BEST_SPEED));
            TieredMergePolicy merges = new TieredMergePolicy();
            merges.setSegmentsPerTier(10);
            config.setMergePolicy(merges);
            ConcurrentMergeScheduler scheduler = new ConcurrentMergeScheduler();
            scheduler.setMaxMergesAndThreads(2, 1);
            config.setMergeScheduler(scheduler);
            // Lucene 9 makes every NRT reopen and commit wait up to 500 ms for merges of the small segments it just
            // flushed; here that wait is a refresh's staleness (and a commit's), while the same merges run anyway in
            // the background. 0: a refresh returns as soon as its flush is done (docs/indexer.md#refresh).
            config.setMaxFullFlushMergeWaitMillis(0);
            IndexWriter writer = new IndexWriter(directory, config);
            boolean empty = writer.getDocStats().maxDoc == 0;
            IdSet fresh = empty && settings.trackedIdsPerShard() > 0 ? new IdSet(settings.trackedIdsPerShard()) : null;
            try {
                // The names the index already holds (its field infos), not shard.json: the same set the committed
                // segments cost, and what a replay after a crash starts from.
                IndexedFieldNames names = new IndexedFieldNames(
                        writer.getFieldNames(), settings.fieldNames().limit(id.tenant()), id.tenant(), budget);
                return new Shard(
                        id, layout.metadataFile(id), directory, writer, new MetadataAccumulator(start), fresh, names);
            } catch (IOException | RuntimeException e) {
                writer.rollback();
                throw e;
            }
        } catch (IndexFormatTooNewException e) {
            directory.close();
            throw newerIndex(layout.shardDir(id), e);
        } catch (CorruptIndexException | IndexFormatTooOldException e) {
            directory.close();
            throw new IOException("shard " + layout.shardDir(id) + " is corrupt: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            directory.close();
            if (e instanceof IOException io
                    && io.getMessage() != null
                    && io.getMessage().contains(dir.getParent().toString())) {
                throw io;
            }
            throw new IOException("shard " + layout.shardDir(id) + " cannot be opened: " + e.getMessage(), e);
        }
    }

    /** A shard whose Lucene index a newer logpipe wrote: not damage (see {@link ShardMetadata.NewerFormatException}). */
    static ShardMetadata.NewerFormatException newerIndex(Path shardDir, IndexFormatTooNewException e) {
        return new ShardMetadata.NewerFormatException("shard " + shardDir
                + " holds a Lucene index newer than this build reads (" + e.getMessage()
                + "): it was written by a newer logpipe; run that version");
    }

    ShardId id() {
        return id;
    }

    ShardStore.Written write(List<IndexRecord> batch) throws IOException {
        touch();
        List<ShardStore.Rejection> rejected = List.of();
        long notIndexed = 0;
        try {
            for (int i = 0; i < batch.size(); i++) {
                IndexRecord r = batch.get(i);
                try {
                    names.begin();
                    Document d = RecordDocuments.record(r, names);
                    upsert(r.record().recordId(), d);
                    names.written();
                    synchronized (metadata) {
                        notIndexed += metadata.add(r.record(), r.eventTime(), names.leftOut());
                    }
                } catch (RuntimeException e) {
                    rejected = rejected.isEmpty() ? new ArrayList<>() : rejected;
                    rejected.add(new ShardStore.Rejection(i, refused("the record", e)));
                }
            }
        } finally {
            writes.incrementAndGet();
        }
        return new ShardStore.Written(rejected, notIndexed);
    }

    List<ShardStore.Rejection> writeDeadLetters(List<DeadLetterEntry> batch) throws IOException {
        touch();
        List<ShardStore.Rejection> rejected = List.of();
        try {
            for (int i = 0; i < batch.size(); i++) {
                DeadLetterEntry e = batch.get(i);
                try {
                    Document d = RecordDocuments.deadLetter(e);
                    upsert(e.id(), d);
                    synchronized (metadata) {
                        metadata.time(e.observedTime());
                        metadata.label("reason", e.reason());
                    }
                } catch (RuntimeException ex) {
                    rejected = rejected.isEmpty() ? new ArrayList<>() : rejected;
                    rejected.add(new ShardStore.Rejection(i, refused("the dead letter", ex)));
                }
            }
        } finally {
            writes.incrementAndGet();
        }
        return rejected;
    }

    /**
     * Why one document was not written, when the failure is that document's own: any exception while its document was
     * built or added, as long as the writer is still healthy (Lucene then drops the one document, and the same
     * document fails the same way on every replay, so it must not stop the partition). A writer that is closed or hit
     * a tragic error fails every document: that is the store failing, and is thrown.
     */
    private String refused(String what, RuntimeException e) {
        if (writer.getTragicException() != null || !writer.isOpen()) {
            throw e;
        }
        return e instanceof IllegalArgumentException
                ? "the index refused " + what + ": " + e.getMessage()
                : "the index could not build " + what + ": " + e;
    }

    private void upsert(String recordId, Document d) throws IOException {
        if (fresh != null && fresh.add(IdSet.hash(recordId))) {
            writer.addDocument(d); // surely new: no document of this shard has the id, so no delete to buffer
        } else {
            writer.updateDocument(new Term(Fields.RECORD_ID, recordId), d);
        }
    }

    boolean dirty() {
        return writes.get() != committedWrites;
    }

    /**
     * Metadata first (a superset of every batch written so far), then the Lucene commit with the offsets. Batches the
     * caller wrote before calling are in the commit; a batch written meanwhile (from another thread) may be in it too,
     * so when one was, the metadata is written again after the commit to cover it, and the shard stays dirty.
     */
    void commit(Map<String, Long> offsets, Instant now) throws IOException {
        touch();
        long upTo = writes.get();
        writeMetadata(offsets, now);
        Map<String, String> data = new HashMap<>();
        offsets.forEach((k, v) -> data.put(k, Long.toString(v)));
        writer.setLiveCommitData(data.entrySet());
        writer.commit();
        committedWrites = upTo;
        if (writes.get() != upTo) {
            writeMetadata(offsets, now);
        }
    }

    private void writeMetadata(Map<String, Long> offsets, Instant now) throws IOException {
        ShardMetadata m;
        synchronized (metadata) {
            m = metadata.snapshot(writer.getDocStats().numDocs, now, offsets);
        }
        m.write(metadataFile);
    }

    Map<String, Long> committedOffsets() throws IOException {
        Map<String, Long> out = new HashMap<>();
        Iterable<Map.Entry<String, String>> data = writer.getLiveCommitData();
        if (data != null) {
            for (Map.Entry<String, String> e : data) {
                out.put(e.getKey(), Long.parseLong(e.getValue()));
            }
        }
        return out;
    }

    synchronized void refresh() throws IOException {
        if (!closed) {
            searchers.maybeRefreshBlocking();
        }
    }

    SearcherManager searchers() {
        touch();
        return searchers;
    }

    long ramBytesUsed() {
        try {
            return writer.ramBytesUsed();
        } catch (AlreadyClosedException e) {
            return 0;
        }
    }

    void setRamBufferMb(int mb) {
        writer.getConfig().setRAMBufferSizeMB(mb);
    }

    long idleNanos(long now) {
        return now - lastUsedNanos;
    }

    private void touch() {
        lastUsedNanos = System.nanoTime();
    }

    /** Closes without committing (uncommitted writes are dropped; Kafka replays them). Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        names.release();
        try {
            searchers.close();
        } finally {
            try {
                writer.rollback();
            } finally {
                directory.close();
            }
        }
    }

    /** Not synchronized: the writer thread asks on every write, and must not wait for a refresh holding the lock. */
    boolean isClosed() {
        return closed;
    }
}
