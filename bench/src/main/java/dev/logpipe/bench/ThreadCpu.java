package dev.logpipe.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU seconds of a live process's threads, grouped by thread name with numbers dropped ({@code Lucene Merge Thread #3}
 * counts as {@code Lucene Merge Thread #}), read from /proc (Linux). The difference of two snapshots says which
 * threads a phase of a benchmark spent its CPU on. Threads that have ended (Lucene starts a thread per merge) are no
 * longer listed, but the process's own total still holds their CPU: the rest of it is the group
 * {@value #ENDED}, so a phase's total is the whole process's and its merges are not lost.
 */
record ThreadCpu(Map<String, Double> seconds) {
    static final String ENDED = "(threads that ended)";

    static ThreadCpu of(long pid) throws IOException {
        Map<String, Double> byName = new TreeMap<>();
        double process = ProcessStats.of(pid).cpuSeconds(); // read first: threads ending meanwhile stay counted once
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    long[] ticks = ProcessStats.userAndSystemTicks(stat);
                    double cpu = (ticks[0] + ticks[1]) / ProcessStats.HZ;
                    byName.merge(name.replaceAll("[0-9]+", ""), cpu, Double::sum);
                } catch (NoSuchFileException gone) { // the thread ended between the listing and the read
                }
            }
        }
        double live = byName.values().stream().mapToDouble(Double::doubleValue).sum();
        byName.put(ENDED, Math.max(0, process - live));
        return new ThreadCpu(byName);
    }

    /** CPU seconds of every thread in this snapshot minus an earlier one. */
    double totalSince(ThreadCpu earlier) {
        return seconds.values().stream().mapToDouble(Double::doubleValue).sum()
                - earlier.seconds.values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum();
    }

    /** This snapshot minus an earlier one, as "name 1.2 s" parts, largest first, groups under 0.05 s left out. */
    String since(ThreadCpu earlier) {
        Map<String, Double> delta = new TreeMap<>();
        seconds.forEach((name, s) -> delta.put(name, s - earlier.seconds.getOrDefault(name, 0.0)));
        StringBuilder b = new StringBuilder();
        delta.entrySet().stream()
                .filter(e -> e.getValue() >= 0.05)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> b.append(b.length() == 0 ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue())));
        return b.toString();
    }
}
