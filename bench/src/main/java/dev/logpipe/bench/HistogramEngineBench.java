package dev.logpipe.bench;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.aggregate.Histogram;
import dev.logpipe.index.store.lucene.CommittedShards;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Locale;

/**
 * The Lucene engine's histograms alone, without HTTP or the planner: the CPU one request's counts cost over the query
 * benchmark's ten day shards, 1 h buckets over the 10 days. Two questions: the total ({@code region="eu-west-1"},
 * which every record holds: counted as a match-all) and what a count by level adds (the two levels other than the
 * most frequent, WARN and ERROR, each a conjunction {@code region AND level}). Prints the CPU milliseconds per request of each round
 * and a checksum of the counts, which must be equal between builds compared.
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.HistogramEngineBench [--records 2000000]
 *   [--dir /tmp/loki-rw] [--reuse] [--rounds 8] [--requests 300]
 * </pre>
 */
public final class HistogramEngineBench {
    private HistogramEngineBench() {}

    public static void main(String[] args) throws Exception {
        long records = 2_000_000;
        Path dir = Path.of("/tmp/logpipe-histogram-bench");
        boolean reuse = false;
        int rounds = 8;
        int requests = 300;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--reuse" -> reuse = true;
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path data = QueryBench.data(dir, records, reuse);
        long end = QueryBench.NOW.toEpochMilli();
        long start = end - 240L * 3_600_000L;
        Histogram h = new Histogram(start, 3_600_000L, 240);
        ShardQuery total = ShardQuery.of("bench", ParsedQuery.parse("*"), start, end)
                .with(new ShardQuery.Exact("region", "eu-west-1"));
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        try (CommittedShards shards = new CommittedShards(new ShardLayout(data), Duration.ofHours(1))) {
            System.out.println("| round | total, ms CPU / request | + 2 levels, ms CPU / request | checksum |");
            System.out.println("|---|---|---|---|");
            for (int round = 0; round < rounds; round++) {
                long checksum = 0;
                long t0 = cpu.getCurrentThreadCpuTime();
                for (int r = 0; r < requests; r++) {
                    checksum += count(shards, total, h, false);
                }
                long t1 = cpu.getCurrentThreadCpuTime();
                for (int r = 0; r < requests; r++) {
                    checksum += count(shards, total, h, true);
                }
                long t2 = cpu.getCurrentThreadCpuTime();
                System.out.printf(
                        Locale.ROOT,
                        "| %d | %.3f | %.3f | %d |%n",
                        round,
                        (t1 - t0) / 1e6 / requests,
                        (t2 - t1) / 1e6 / requests,
                        checksum);
            }
        }
    }

    /** One request: every day shard's total, and with {@code levels} the two minority levels' counts. */
    private static long count(CommittedShards shards, ShardQuery total, Histogram h, boolean levels) throws Exception {
        long checksum = 0;
        for (long day = QueryBench.NOW.toEpochMilli() - 10 * 86_400_000L;
                day < QueryBench.NOW.toEpochMilli();
                day += 86_400_000L) {
            ShardId id = ShardId.records("bench", LocalDate.ofEpochDay(Math.floorDiv(day, 86_400_000L)));
            try (ShardSearcher s = shards.open(id).orElseThrow()) {
                checksum += sum(s.histogram(total, h, Long.MAX_VALUE));
                if (levels) {
                    for (String level : new String[] {"WARN", "ERROR"}) {
                        checksum +=
                                sum(s.histogram(total.with(new ShardQuery.Exact("level", level)), h, Long.MAX_VALUE));
                    }
                }
            }
        }
        return checksum;
    }

    private static long sum(long[] counts) {
        long s = 0;
        for (int i = 0; i < counts.length; i++) {
            s += counts[i] * (i + 1);
        }
        return s;
    }
}
