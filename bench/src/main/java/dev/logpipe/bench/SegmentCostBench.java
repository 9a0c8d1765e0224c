package dev.logpipe.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.logpipe.index.store.lucene.IndexSchema;
import dev.logpipe.index.store.lucene.RecordDocuments;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogByteSizeMergePolicy;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.store.FSDirectory;

/**
 * The indexer's write path without Kafka, to price segment sizes, merge policies and feeding order: the
 * {@link IndexerBench}'s records, decoded and built with {@code RecordDocuments}, added in chunks to one index-sorted
 * {@code IndexWriter} (set up as a shard's), each chunk followed by a near-real-time reopen (one refresh interval of
 * one shard). Prints the process CPU per record (after generating and decoding; merges included: they finish at close), the
 * writing thread's add and flush time per record, and the reopens' wall times (p50 / p99 / max).
 *
 * <pre>
 *   java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.SegmentCostBench CHUNK CHUNKS arrival|sorted POLICY [MERGE_WAIT_MS]
 *     POLICY: none | tmp:SEGMENTS_PER_TIER[:MAX_MERGE_AT_ONCE[:FLOOR_MB]] | log:MERGE_FACTOR
 *     MERGE_WAIT_MS: how long a reopen waits for merges of small segments (0, as a shard; Lucene's default 500)
 *   e.g. SegmentCostBench 2250 134 arrival tmp:10
 * </pre>
 */
public final class SegmentCostBench {
    public static void main(String[] args) throws Exception {
        int chunk = Integer.parseInt(args[0]);
        int chunks = Integer.parseInt(args[1]);
        boolean sorted = args[2].equals("sorted");
        MergePolicy policy = policy(args[3]);
        long mergeWait = args.length > 4 ? Long.parseLong(args[4]) : 0; // Shard's setting; Lucene's default is 500
        RecordCodec codec = new RecordCodec();
        List<byte[]> lines = new ArrayList<>();
        List<LogRecord> records = new ArrayList<>();
        Random random = new Random(1);
        Instant base = Instant.parse("2026-12-01T06:00:00Z");
        for (long m = 0; lines.size() < (long) chunk * chunks; m++) { // as IndexerBench: 100 records a message
            byte[] message = IndexerBench.message("t1", m, base.plusMillis(m * 10), random);
            int start = 0;
            for (int i = 0; i < message.length; i++) {
                if (message[i] == '\n') {
                    byte[] line = Arrays.copyOfRange(message, start, i);
                    lines.add(line);
                    records.add(codec.decode(line));
                    start = i + 1;
                }
            }
        }
        Path dir = Files.createTempDirectory("segment-cost");
        IndexWriterConfig config = new IndexWriterConfig(IndexSchema.indexAnalyzer())
                .setIndexSort(IndexSchema.indexSort())
                .setRAMBufferSizeMB(40)
                .setCodec(new Lucene912Codec(Lucene912Codec.Mode.BEST_SPEED))
                .setMergePolicy(policy)
                .setMaxFullFlushMergeWaitMillis(mergeWait);
        ConcurrentMergeScheduler scheduler = new ConcurrentMergeScheduler();
        scheduler.setMaxMergesAndThreads(2, 1);
        config.setMergeScheduler(scheduler);
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.gc();
        long cpu0 = os.getProcessCpuTime();
        long add = 0;
        long flush = 0;
        long[] reopenNanos = new long[chunks];
        try (IndexWriter w = new IndexWriter(FSDirectory.open(dir), config)) {
            for (int c = 0; c < chunks; c++) {
                List<Integer> order = new ArrayList<>();
                for (int i = c * chunk; i < (c + 1) * chunk; i++) {
                    order.add(i);
                }
                if (sorted) { // the index sort: newest first, then record_id
                    order.sort(
                            Comparator.comparing((Integer i) -> records.get(i).eventTime())
                                    .reversed()
                                    .thenComparing(i -> records.get(i).recordId()));
                }
                long t0 = threads.getCurrentThreadCpuTime();
                for (int i : order) {
                    LogRecord r = records.get(i);
                    byte[] line = lines.get(i);
                    w.addDocument(RecordDocuments.record(r, r.eventTime(), r.observedTime(), line, 0, line.length));
                }
                long t1 = threads.getCurrentThreadCpuTime();
                long wall = System.nanoTime();
                DirectoryReader.open(w).close();
                reopenNanos[c] = System.nanoTime() - wall;
                add += t1 - t0;
                flush += threads.getCurrentThreadCpuTime() - t1;
            }
        }
        long n = (long) chunk * chunks;
        System.out.printf(
                "%s %s, %,d records in chunks of %,d: process CPU %.1f µs/record (decoding not included), add %.1f, flush %.1f"
                        + " µs/record on the writing thread%n",
                args[2], args[3], n, chunk, (os.getProcessCpuTime() - cpu0) / 1e3 / n, add / 1e3 / n, flush / 1e3 / n);
        Arrays.sort(reopenNanos);
        System.out.printf(
                "merge wait on reopen %d ms: reopen wall time p50 %.0f / p99 %.0f / max %.0f ms%n",
                mergeWait,
                reopenNanos[chunks / 2] / 1e6,
                reopenNanos[Math.min(chunks - 1, (int) (chunks * 0.99))] / 1e6,
                reopenNanos[chunks - 1] / 1e6);
        ForwarderThroughputBench.deleteRecursively(dir);
    }

    private static MergePolicy policy(String spec) {
        String[] p = spec.split(":");
        switch (p[0]) {
            case "none":
                return NoMergePolicy.INSTANCE;
            case "tmp":
                TieredMergePolicy t = new TieredMergePolicy();
                t.setSegmentsPerTier(Double.parseDouble(p[1]));
                if (p.length > 2) {
                    t.setMaxMergeAtOnce(Integer.parseInt(p[2]));
                }
                if (p.length > 3) {
                    t.setFloorSegmentMB(Double.parseDouble(p[3]));
                }
                return t;
            case "log":
                LogByteSizeMergePolicy l = new LogByteSizeMergePolicy();
                l.setMergeFactor(Integer.parseInt(p[1]));
                return l;
            default:
                throw new IllegalArgumentException("merge policy: none, tmp:N[:M[:FLOOR_MB]] or log:N, was " + spec);
        }
    }
}
