package dev.logpipe.forwarder.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What a spool directory still holds when the spool is turned off: its segment files may carry records that were
 * acknowledged to the watermark but never delivered, and nothing reads them any more. Said at startup, never
 * silently left behind.
 */
final class SpoolLeftovers {
    private SpoolLeftovers() {}

    /** A warning naming {@code dir}, the segment files and their bytes; null when there is nothing (or no dir). */
    static String describe(Path dir) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        long files = 0;
        long bytes = 0;
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : list.filter(f -> f.getFileName().toString().endsWith(".seg"))
                    .toList()) {
                long size = Files.size(p);
                if (size > 0) {
                    files++;
                    bytes += size;
                }
            }
        } catch (IOException e) {
            return "sink.spool is off, and the spool directory " + dir + " cannot be read (" + e.getMessage()
                    + "): it may hold records that were never delivered";
        }
        if (files == 0) {
            return null;
        }
        return "sink.spool is off, but " + dir + " still holds " + files + " segment file(s), " + bytes + " bytes, "
                + "that may hold records never delivered: set sink.spool.enabled: true (same path) to deliver them, "
                + "or delete the directory to drop them";
    }
}
