package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.watermark.Watermark;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Whether a file is the one a watermark was written for, and where a file went: by device, inode and the
 * fingerprint of its first bytes (an inode reused by a new file does not match), never by name.
 */
final class FileIdentity {
    private FileIdentity() {}

    /** Whether the open file {@code ch}, whose identity is {@code key}, is the file {@code w} describes. */
    static boolean matches(Watermark w, FileKey key, FileChannel ch) throws IOException {
        if (w.inode() != key.inode()) {
            return false;
        }
        if (w.device() != Watermark.UNKNOWN && w.device() != key.device()) {
            return false;
        }
        if (w.fingerprint() == null) {
            return true;
        }
        return Fingerprint.matches(ch, Long.parseUnsignedLong(w.fingerprint(), 16), w.fingerprintBytes());
    }

    /** The file in {@code dir} with the identity {@code key}, or null (also when the directory is gone). */
    static Path find(Path dir, FileKey key) {
        return find(dir, (p, k) -> key.equals(k));
    }

    /** The regular file in {@code dir} that the watermark {@code w} describes, fingerprint included, or null. */
    static Path find(Path dir, Watermark w) {
        return find(dir, (p, k) -> {
            if (!Files.isRegularFile(p)) {
                return false;
            }
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                return matches(w, k, ch);
            }
        });
    }

    private interface Candidate {
        boolean is(Path path, FileKey key) throws IOException;
    }

    private static Path find(Path dir, Candidate candidate) {
        if (dir == null) {
            return null;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                try {
                    if (candidate.is(p, FileKey.of(p))) {
                        return p;
                    }
                } catch (IOException ignored) {
                    // vanished while listing
                }
            }
        } catch (IOException ignored) {
            // directory gone
        }
        return null;
    }
}
