package dev.logpipe.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and peak RSS of a live process, read from /proc (Linux). */
record ProcessStats(double cpuSeconds, double userSeconds, double systemSeconds, long peakRssKiB) {
    /** USER_HZ on Linux: the unit of the CPU times in /proc's stat files. */
    static final double HZ = 100;

    static ProcessStats of(long pid) throws IOException {
        long[] ticks = userAndSystemTicks(Files.readString(Path.of("/proc/" + pid + "/stat")));
        long hwm = 0;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmHWM:")) {
                hwm = Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return new ProcessStats((ticks[0] + ticks[1]) / HZ, ticks[0] / HZ, ticks[1] / HZ, hwm);
    }

    /** User and system CPU ticks from the text of a process's or thread's /proc stat file. */
    static long[] userAndSystemTicks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    }

    /** The resident set size now (VmRSS), in KiB. */
    static long rssKiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return 0;
    }
}
