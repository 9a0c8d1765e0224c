package dev.logpipe.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and peak RSS of a live process, read from /proc (Linux). */
record ProcessStats(double cpuSeconds, double userSeconds, double systemSeconds, long peakRssKiB) {
    static ProcessStats of(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long utime = Long.parseLong(f[11]);
        long stime = Long.parseLong(f[12]);
        long ticks = utime + stime;
        long hz = 100; // USER_HZ on Linux
        long hwm = 0;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmHWM:")) {
                hwm = Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return new ProcessStats((double) ticks / hz, (double) utime / hz, (double) stime / hz, hwm);
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
