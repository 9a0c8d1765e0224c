package dev.logpipe.query;

import dev.logpipe.archive.config.ArchiveSettings;
import dev.logpipe.archive.store.ObjectStore;
import dev.logpipe.archive.tier.ArchiveCatalog;
import dev.logpipe.archive.tier.TieredShardSource;
import dev.logpipe.index.store.read.ShardSource;
import java.io.Closeable;
import java.io.IOException;
import java.time.InstantSource;

/**
 * The hot shards and the archive tier as one source for a query process (docs/archive.md#searching): the catalog the
 * indexer writes, followed as it changes, the object store it names, archived days restored into a bounded local
 * cache. Closing it closes the cache, the store and the hot source.
 */
final class ArchivedDays implements Closeable {
    private final TieredShardSource source;
    private final ObjectStore objects;
    private final Closeable hot;

    private ArchivedDays(TieredShardSource source, ObjectStore objects, Closeable hot) {
        this.source = source;
        this.objects = objects;
        this.hot = hot;
    }

    /** @throws IOException the catalog is unreadable or corrupt (named in the message) */
    static ArchivedDays open(ArchiveSettings settings, ShardSource hot, InstantSource clock, Closeable closeHot)
            throws IOException {
        ArchiveCatalog catalog = ArchiveCatalog.load(settings.catalog());
        ObjectStore objects = settings.openStore();
        try {
            return new ArchivedDays(
                    new TieredShardSource(
                            hot,
                            catalog,
                            objects,
                            new TieredShardSource.Cache(
                                    settings.cacheDir(), settings.cacheDays(), settings.cacheBytes()),
                            clock),
                    objects,
                    closeHot);
        } catch (RuntimeException e) {
            objects.close();
            throw e;
        }
    }

    ShardSource source() {
        return source;
    }

    @Override
    public void close() throws IOException {
        try {
            source.close();
        } finally {
            try {
                objects.close();
            } finally {
                hot.close();
            }
        }
    }
}
