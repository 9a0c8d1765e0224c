package dev.logpipe.forwarder.internal.tail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** A file's device and inode: the OS identity that survives a rename. */
public record FileKey(long device, long inode) {
    /** Reads the key of the file a path points at now (following symlinks). */
    public static FileKey of(Path path) throws IOException {
        Map<String, Object> a = Files.readAttributes(path, "unix:dev,ino");
        return new FileKey(((Number) a.get("dev")).longValue(), ((Number) a.get("ino")).longValue());
    }
}
