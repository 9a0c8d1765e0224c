package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.store.DirectoryStore;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LiveShards;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM that archives one day of {@code DATA/hot} and, after the step named in its arguments, says so on stdout
 * and waits to be killed (kill -9 by the test).
 */
public final class ArchiverChild {
    private ArchiverChild() {}

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        Archiver.Step killAt = Archiver.Step.valueOf(args[1]);
        InstantSource clock = InstantSource.fixed(Instant.parse("2026-11-30T00:00:00Z"));
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data.resolve("hot")), StoreSettings.defaults(), clock)) {
            Archiver archiver = new Archiver(
                    store,
                    new LiveShards(store),
                    new DirectoryStore(data.resolve("archive")),
                    ArchiveCatalog.load(data.resolve("catalog.json")),
                    new ArchiveWriter.Settings(8 << 10, 3),
                    data.resolve("work"),
                    clock,
                    (step, day) -> {
                        if (step == killAt) {
                            System.out.println("at " + step);
                            System.out.flush();
                            try {
                                new CountDownLatch(1).await(); // parked until the test kills it at this step
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            Runtime.getRuntime().halt(3); // never reached normally: the test kills this JVM first
                        }
                    });
            archiver.archive(ShardId.records("acme", LocalDate.parse("2026-11-20")));
        }
    }
}
