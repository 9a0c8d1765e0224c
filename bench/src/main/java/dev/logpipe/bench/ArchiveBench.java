package dev.logpipe.bench;

import dev.logpipe.archive.format.ArchiveReader;
import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.format.ArchivedRecord;
import dev.logpipe.archive.format.Block;
import dev.logpipe.archive.format.FileRange;
import dev.logpipe.archive.format.Label;
import dev.logpipe.archive.format.Tokens;
import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The archive format's figures (issue 28, docs/benchmarks.md#archive-format): archive bytes against raw NDJSON and
 * archiving speed (one thread: decode, tokenize, compress, write) on the query benchmark's records and on Loghub
 * samples; then, on the query set, the needle's latency at the format level (footer, token filters, the blocks they
 * let through, decoded) and a full scan's speed (by substring and by index tokens, as the query service scans). Not the
 * query service: no HTTP, no planner, no cache.
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.ArchiveBench --records 2000000 --dir /tmp/archivebench \
 *   [--loghub ../shared/data/loghub] [--block-bytes 1048576] [--level 3] [--scan-rounds 4]
 * </pre>
 */
public final class ArchiveBench {
    private static final RecordCodec CODEC = new RecordCodec();

    private ArchiveBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        long n = Long.parseLong(a.getOrDefault("records", "2000000"));
        Path dir = Files.createDirectories(Path.of(a.getOrDefault("dir", "/tmp/logpipe-archivebench")));
        ArchiveWriter.Settings settings = new ArchiveWriter.Settings(
                Integer.parseInt(a.getOrDefault("block-bytes", String.valueOf(1 << 20))),
                Integer.parseInt(a.getOrDefault("level", "3")));
        System.out.println("settings " + settings + ", " + Runtime.getRuntime().availableProcessors() + " cpus");

        QueryRecords gen = new QueryRecords(n);
        Map<LocalDate, List<LogRecord>> days = new TreeMap<>();
        while (gen.hasNext()) {
            LogRecord r = gen.next();
            days.computeIfAbsent(LocalDate.ofInstant(r.eventTime(), ZoneOffset.UTC), d -> new ArrayList<>())
                    .add(r);
        }
        List<Path> files = archive("query-set", days, dir, settings);
        days.clear(); // the records made for it: not kept through the scans (a full heap made their times noise)
        needle(files, Integer.parseInt(a.getOrDefault("scan-rounds", "4")));
        if (a.containsKey("loghub")) {
            try (var logs = Files.list(Path.of(a.get("loghub")))) {
                for (Path log :
                        logs.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                    archive(
                            log.getFileName().toString(),
                            Map.of(LocalDate.parse("2026-11-20"), loghub(log)),
                            dir,
                            settings);
                }
            }
        }
    }

    private static List<LogRecord> loghub(Path log) throws IOException {
        List<LogRecord> out = new ArrayList<>();
        String service =
                log.getFileName().toString().replaceFirst("_2k\\.log$", "").toLowerCase();
        Instant t = Instant.parse("2026-11-20T00:00:00Z");
        int i = 0;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Level level = line.contains("ERROR") || line.contains("FATAL")
                    ? Level.ERROR
                    : line.contains("WARN") ? Level.WARN : Level.INFO;
            Instant at = t.plusMillis(i * 997L);
            out.add(LogRecord.builder(line)
                    .recordId(service + "-" + i)
                    .tenantId("bench")
                    .eventTime(at)
                    .observedTime(at)
                    .service(service)
                    .level(level)
                    .build());
            i++;
        }
        return out;
    }

    /** Writes each day's archive; prints raw NDJSON bytes, archive bytes, their ratio and records/s. */
    private static List<Path> archive(
            String name, Map<LocalDate, List<LogRecord>> days, Path dir, ArchiveWriter.Settings settings)
            throws Exception {
        long raw = 0;
        long bytes = 0;
        long records = 0;
        long nanos = 0;
        long rebuilt = 0;
        List<Path> files = new ArrayList<>();
        for (Map.Entry<LocalDate, List<LogRecord>> day : days.entrySet()) {
            List<byte[]> lines = new ArrayList<>();
            List<LogRecord> rs = new ArrayList<>(day.getValue());
            rs.sort((x, y) -> x.eventTime().equals(y.eventTime())
                    ? Arrays.compareUnsigned(
                            y.recordId().getBytes(StandardCharsets.UTF_8),
                            x.recordId().getBytes(StandardCharsets.UTF_8))
                    : x.eventTime().compareTo(y.eventTime()));
            for (LogRecord r : rs) {
                byte[] line = CODEC.encode(r);
                lines.add(line);
                raw += line.length + 1;
            }
            Path file = dir.resolve(name + "-" + day.getKey() + ".lpa");
            long start = System.nanoTime();
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
                ArchiveWriter w = new ArchiveWriter(ShardId.records("bench", day.getKey()), settings, out);
                for (byte[] line : lines) {
                    LogRecord decoded = CODEC.decode(line); // the archiver decodes each stored source
                    String source = new String(line, StandardCharsets.UTF_8);
                    w.add(ArchivedRecord.of(decoded, decoded.eventTime(), source), decoded);
                }
                w.finish();
                rebuilt += w.rebuiltRecords();
            }
            nanos += System.nanoTime() - start;
            records += lines.size();
            bytes += Files.size(file);
            files.add(file);
        }
        System.out.printf(
                "%-16s %,10d records  raw NDJSON %,13d B  archive %,11d B  ratio %.4f  archiving %,9.0f records/s (1 thread)  sources rebuilt from columns %.1f %%%n",
                name, records, raw, bytes, (double) bytes / raw, records / (nanos / 1e9), 100.0 * rebuilt / records);
        return files;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** Needle through the token filters, ERROR blocks through labels, and a full scan of every block. */
    private static void needle(List<Path> files, int scanRounds) throws IOException {
        for (int round = 0; round < 6; round++) {
            long start = System.nanoTime();
            int blocks = 0;
            int fetched = 0;
            int hits = 0;
            long footerNanos = 0;
            for (Path f : files) {
                long fs = System.nanoTime();
                ArchiveReader r = ArchiveReader.open(f.toString(), new FileRange(f));
                footerNanos += System.nanoTime() - fs;
                for (int b = 0; b < r.footer().blocks().size(); b++) {
                    blocks++;
                    if (!r.filter(b).mightContain(Tokens.message(QueryRecords.NEEDLE))) {
                        continue;
                    }
                    fetched++;
                    Block block = r.block(b);
                    for (int i = 0; i < block.size(); i++) {
                        if (block.message(i).contains(QueryRecords.NEEDLE)) {
                            hits++;
                        }
                    }
                }
            }
            System.out.printf(
                    "needle round %d: %.1f ms (footers %.1f ms), %d of %d blocks fetched, %d hits%n",
                    round, (System.nanoTime() - start) / 1e6, footerNanos / 1e6, fetched, blocks, hits);
        }
        // level:ERROR newest 100: walk days newest first, blocks whose LEVEL label lists ERROR, rows backwards
        for (int round = 0; round < 3; round++) {
            long start = System.nanoTime();
            int found = 0;
            int fetched = 0;
            outer:
            for (int d = files.size() - 1; d >= 0; d--) {
                ArchiveReader r = ArchiveReader.open(files.get(d).toString(), new FileRange(files.get(d)));
                for (int b = r.footer().blocks().size() - 1; b >= 0; b--) {
                    if (!r.footer().blocks().get(b).mayHold(Label.LEVEL, "ERROR")) {
                        continue;
                    }
                    fetched++;
                    Block block = r.block(b);
                    for (int i = block.size() - 1; i >= 0; i--) {
                        if (block.record(i).level() == Level.ERROR && ++found == 100) {
                            break outer;
                        }
                    }
                }
            }
            System.out.printf(
                    "level:ERROR newest 100 round %d: %.1f ms, %d blocks fetched%n",
                    round, (System.nanoTime() - start) / 1e6, fetched);
        }
        String token = LogAnalyzer.indexTokens(QueryRecords.NEEDLE).get(0);
        List<Double> bySubstring = new ArrayList<>();
        List<Double> byTokens = new ArrayList<>();
        for (int round = 0; round < scanRounds; round++) {
            // what a scan for a token no filter rules out does: every block decoded, every message searched; odd
            // rounds as the query service's archive search does it (the message's index tokens, NeedleScan), even
            // rounds by a substring test (the decoding alone, nearly)
            boolean tokens = round % 2 == 1;
            long start = System.nanoTime();
            long sourceBytes = 0;
            int hits = 0;
            for (Path f : files) {
                ArchiveReader r = ArchiveReader.open(f.toString(), new FileRange(f));
                sourceBytes += r.footer().sourceBytes();
                for (int b = 0; b < r.footer().blocks().size(); b++) {
                    Block block = r.block(b);
                    for (int i = 0; i < block.size(); i++) {
                        boolean hit = tokens
                                ? LogAnalyzer.hasIndexToken(block.message(i), token)
                                : block.message(i).contains(QueryRecords.NEEDLE);
                        hits += hit ? 1 : 0;
                    }
                }
            }
            double s = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    "full scan round %d (%s): %.2f s, %.0f MB/s of source text (1 thread), %d messages hold the needle%n",
                    round, tokens ? "index tokens, as NeedleScan" : "substring", s, sourceBytes / s / 1e6, hits);
            if (round >= 2) { // the first two pay the JIT
                (tokens ? byTokens : bySubstring).add(sourceBytes / s / 1e6);
            }
        }
        if (!byTokens.isEmpty()) {
            System.out.printf(
                    "full scan after warm-up, MB/s of source text (1 thread): index tokens median %.0f best %.0f of %d;"
                            + " substring median %.0f best %.0f of %d%n",
                    median(byTokens),
                    Collections.max(byTokens),
                    byTokens.size(),
                    median(bySubstring),
                    Collections.max(bySubstring),
                    bySubstring.size());
        }
        for (int round = 0; round < 2; round++) {
            // what a restore does: every source text made (rebuilt from columns in format 2)
            long start = System.nanoTime();
            long sourceBytes = 0;
            for (Path f : files) {
                ArchiveReader r = ArchiveReader.open(f.toString(), new FileRange(f));
                for (int b = 0; b < r.footer().blocks().size(); b++) {
                    Block block = r.block(b);
                    for (int i = 0; i < block.size(); i++) {
                        sourceBytes += block.source(i).length();
                    }
                }
            }
            double s = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    "every source round %d: %.2f s, %.0f MB/s of source text (1 thread)%n",
                    round, s, sourceBytes / s / 1e6);
        }
    }
}
