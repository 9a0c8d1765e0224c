package dev.logpipe.archive.config;

import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.store.DirectoryStore;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.archive.store.S3Settings;
import dev.logpipe.archive.store.S3Store;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A role's {@code archive} section (docs/archive.md#configuration), the same for the indexer (which archives) and the
 * query service (which searches the archives): where the objects live, the catalog, the local working and cache
 * directories, when the schedule checks, and how archives are written.
 *
 * @param s3            the S3-compatible store; empty for the local {@code directory}
 * @param directory     the local object store's root (unused with {@code s3})
 * @param catalog       the catalog file ({@code catalog.json} of the archived days)
 * @param workDir       where the indexer writes an archive before uploading it
 * @param cacheDir      where the query service restores archived days it searches
 * @param cacheDays     how many restored days the query service keeps, least recently used evicted
 * @param cacheBytes    how many bytes of restored days (on disk) the query service keeps, least recently used evicted
 * @param grace         how long after a day ends before it may be archived (late records)
 * @param checkInterval how often the indexer looks for due days (the first check one interval after start)
 * @param restoreSettle after a day restored into the hot tier is committed, how long before its archive is forgotten
 *                      (for query processes to reopen the hot shards first: at least their {@code reopen_interval})
 * @param writer        block size and zstd level of new archives
 */
public record ArchiveSettings(
        Optional<S3Settings> s3,
        Path directory,
        Path catalog,
        Path workDir,
        Path cacheDir,
        int cacheDays,
        long cacheBytes,
        Duration grace,
        Duration checkInterval,
        Duration restoreSettle,
        ArchiveWriter.Settings writer) {
    public ArchiveSettings {
        Objects.requireNonNull(s3, "s3");
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(cacheDir, "cacheDir");
        Objects.requireNonNull(grace, "grace");
        Objects.requireNonNull(checkInterval, "checkInterval");
        Objects.requireNonNull(restoreSettle, "restoreSettle");
        Objects.requireNonNull(writer, "writer");
        if (cacheBytes < 1) {
            throw new IllegalArgumentException("cacheBytes must be >= 1, was " + cacheBytes);
        }
        if (cacheDays < 1) {
            throw new IllegalArgumentException("cacheDays must be >= 1, was " + cacheDays);
        }
    }

    /** The defaults under a data directory: a local store at {@code DATA/archive/}. */
    public static ArchiveSettings defaults(Path dataDir) {
        return new ArchiveSettings(
                Optional.empty(),
                dataDir.resolve("archive"),
                dataDir.resolve("archive-catalog.json"),
                dataDir.resolve("archive-work"),
                dataDir.resolve("archive-cache"),
                ArchiveSettingsLoader.DEFAULT_CACHE_DAYS,
                ArchiveSettingsLoader.DEFAULT_CACHE_BYTES,
                ArchiveSettingsLoader.DEFAULT_GRACE,
                ArchiveSettingsLoader.DEFAULT_CHECK_INTERVAL,
                ArchiveSettingsLoader.DEFAULT_RESTORE_SETTLE,
                ArchiveWriter.Settings.DEFAULTS);
    }

    /** Opens the object store these settings name (the caller closes it). */
    public ObjectStore openStore() {
        return s3.<ObjectStore>map(S3Store::new).orElseGet(() -> new DirectoryStore(directory));
    }

    /** Where the archives go, for log lines and the status API (never a secret). */
    public String describe() {
        return s3.map(s -> "s3 " + (s.endpoint() == null ? "aws" : s.endpoint()) + " bucket=" + s.bucket()
                        + (s.prefix().isEmpty() ? "" : " prefix=" + s.prefix()))
                .orElse("directory " + directory);
    }
}
