package dev.logpipe.index.store.lucene;

import dev.logpipe.index.shard.ShardMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code shard.json} files read for the planner, parsed again only when the file changed: the metadata is written by
 * rename (a new file each time), so its file key, modification time and size tell a changed file from the one read
 * before, at the price of one {@code stat} instead of a read and a JSON parse per shard and query. What it returns is
 * never older than the file was when the call began.
 */
final class MetadataFiles {
    private record Read(Object fileKey, long modifiedNanos, long size, Optional<ShardMetadata> metadata) {}

    private final Map<Path, Read> cache = new ConcurrentHashMap<>();

    Optional<ShardMetadata> read(Path file) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            cache.remove(file);
            return Optional.empty();
        }
        long modified = a.lastModifiedTime().to(TimeUnit.NANOSECONDS);
        Read r = cache.get(file);
        if (r != null
                && Objects.equals(r.fileKey(), a.fileKey())
                && r.modifiedNanos() == modified
                && r.size() == a.size()) {
            return r.metadata();
        }
        Optional<ShardMetadata> m = ShardMetadata.read(file); // read after the stat: at least as new as it
        cache.put(file, new Read(a.fileKey(), modified, a.size(), m));
        return m;
    }

    void forget(Path file) {
        cache.remove(file);
    }
}
