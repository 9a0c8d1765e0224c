package dev.logpipe.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Idle cost: a forwarder watching N files that do not change. Publishes one line of each, then measures
 * the CPU the process uses over a quiet window.
 *
 * <pre>java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.IdleFilesBench [--files 1000] [--seconds 30]</pre>
 */
public final class IdleFilesBench {
    public static void main(String[] args) throws Exception {
        int files = 1000;
        int seconds = 30;
        Path dir = Path.of("/tmp/logpipe-bench-idle");
        Path jar = Path.of("forwarder/target/log-forwarder.jar");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--files" -> files = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path logs = dir.resolve("logs");
        Files.createDirectories(logs);
        for (int i = 0; i < files; i++) {
            Files.writeString(logs.resolve("svc-" + i + ".log"), "started instance " + i + "\n");
        }
        Files.deleteIfExists(dir.resolve("state/watermarks.json"));
        Files.deleteIfExists(dir.resolve("out.ndjson"));
        String yaml =
                "watch:\n  state:\n    path: " + dir.resolve("state/watermarks.json") + "\n  sources:\n    - path: "
                        + logs + "\n      patterns: [\"*.log\"]\nsink:\n  type: file\n  file:\n    path: "
                        + dir.resolve("out.ndjson") + "\n";
        try (BenchForwarder f = BenchForwarder.start(jar, dir, "-Xms32m -Xmx128m -XX:+UseSerialGC", yaml)) {
            f.awaitMetric("log_forwarder_records_published_total", files, Duration.ofMinutes(2));
            Thread.sleep(5000); // let start-up compilation settle before the quiet window
            ProcessStats before = f.stats();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            ProcessStats after = f.stats();
            double wall = (System.nanoTime() - t0) / 1e9;
            double cpu = after.cpuSeconds() - before.cpuSeconds();
            System.out.printf(
                    Locale.ROOT,
                    "forwarder idle: %d watched files, %.1f s window (defaults: poll 250ms, " + "scan_interval 1s)%n",
                    files,
                    wall);
            System.out.printf(Locale.ROOT, "  cpu            %.2f CPU-s = %.2f%% of one core%n", cpu, 100 * cpu / wall);
            System.out.printf(Locale.ROOT, "  peak RSS       %.1f MiB%n", after.peakRssKiB() / 1024.0);
        }
    }
}
