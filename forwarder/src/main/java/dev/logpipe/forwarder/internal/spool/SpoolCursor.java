package dev.logpipe.forwarder.internal.spool;

import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.forwarder.StateException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The spool's {@code cursor} file: {@code "<segment> <offset>\n"}, the position before which every frame is
 * delivered. Written atomically (temp file, fsync, rename, directory fsync).
 */
record SpoolCursor(long segment, long offset) {
    static final String FILE = "cursor";

    /** The cursor stored in {@code dir}, or (0, 0) when there is none yet. */
    static SpoolCursor read(Path dir) throws IOException, StateException {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return new SpoolCursor(0, 0);
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        String[] parts = text.split(" ");
        try {
            if (parts.length != 2) {
                throw new NumberFormatException(text);
            }
            long segment = Long.parseLong(parts[0]);
            long offset = Long.parseLong(parts[1]);
            if (segment < 0 || offset < 0) {
                throw new NumberFormatException(text);
            }
            return new SpoolCursor(segment, offset);
        } catch (NumberFormatException e) {
            throw new StateException("spool cursor file " + file + " is corrupt (expected \"<segment> <offset>\", "
                    + "found \"" + text + "\"). Move the spool directory aside to start");
        }
    }

    void write(Path dir) throws IOException {
        AtomicFile.write(dir.resolve(FILE), (segment + " " + offset + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
