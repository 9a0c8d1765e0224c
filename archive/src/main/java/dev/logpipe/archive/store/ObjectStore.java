package dev.logpipe.archive.store;

import dev.logpipe.archive.format.RangeSource;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Where archives live: immutable objects under {@code /}-separated keys (docs/archive.md#object-stores). A local
 * directory ({@link DirectoryStore}, the standalone's {@code DATA/archive/}) or an S3-compatible bucket
 * ({@link S3Store}). Thread-safe.
 */
public interface ObjectStore extends Closeable {
    /**
     * Stores the file's bytes under {@code key}, replacing any object there whole; returns only once the object is
     * durable and complete (a reader never sees part of it).
     */
    void put(String key, Path file) throws IOException;

    /**
     * Ranged reads of the object under {@code key}.
     *
     * @throws java.nio.file.NoSuchFileException there is none (the message names the key)
     */
    RangeSource open(String key) throws IOException;

    /** The keys that start with {@code prefix}, sorted. */
    List<String> list(String prefix) throws IOException;

    /** Deletes the object under {@code key}; false when there was none. */
    boolean delete(String key) throws IOException;

    /** Where the store is, for messages and the status API ({@code file:/data/archive}, {@code s3://bucket/prefix}). */
    String location();

    /** Checks a key: non-empty segments of letters, digits and {@code . _ - =}, separated by {@code /}. */
    static String checkKey(String key) {
        if (key == null || !key.matches("[A-Za-z0-9._=-]+(/[A-Za-z0-9._=-]+)*") || key.contains("..")) {
            throw new IllegalArgumentException("not an object key: " + key);
        }
        return key;
    }
}
