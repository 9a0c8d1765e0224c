package dev.logpipe.archive.tier;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.write.ShardStore;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Archiver} on the hot store's writing thread (as retention runs): at the first check it finishes
 * what a crash left ({@link Archiver#recover}), then every {@code checkInterval} it archives each hot day of records
 * the {@link ArchivePolicy} says is due. A day that fails (an object store down, a read-back mismatch) keeps its hot
 * shard, is logged with its cause and counted, and is tried again at the next check; the other days go on.
 */
public final class ArchiveSchedule {
    private static final Logger log = LoggerFactory.getLogger(ArchiveSchedule.class);

    /** What one check did. */
    public record Run(List<CatalogEntry> archived, List<String> failures) {
        public Run {
            archived = List.copyOf(archived);
            failures = List.copyOf(failures);
        }
    }

    private final Archiver archiver;
    private final ShardStore hot;
    private final ArchivePolicy policy;
    private final InstantSource clock;
    private final Duration checkInterval;
    private long lastRunMillis = Long.MIN_VALUE;
    private boolean recovered;

    public ArchiveSchedule(
            Archiver archiver, ShardStore hot, ArchivePolicy policy, InstantSource clock, Duration checkInterval) {
        this.archiver = archiver;
        this.hot = hot;
        this.policy = policy;
        this.clock = clock;
        this.checkInterval = checkInterval;
    }

    /** Runs a check when {@code checkInterval} has passed since the last; null when it was not due. */
    public Run runIfDue() throws IOException {
        long now = clock.millis();
        if (lastRunMillis != Long.MIN_VALUE && now - lastRunMillis < checkInterval.toMillis()) {
            return null;
        }
        lastRunMillis = now;
        return run();
    }

    /** One check over every hot day of records. */
    public Run run() throws IOException {
        if (!recovered) {
            archiver.recover();
            recovered = true;
        }
        List<CatalogEntry> archived = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (ShardId day : hot.shards(ShardKind.RECORDS)) {
            if (!policy.due(day.tenant(), day.day(), clock.instant())) {
                continue;
            }
            try {
                archiver.archive(day).entry().ifPresent(archived::add);
            } catch (IOException e) {
                log.warn("archiving {} failed, its hot shard is kept and tried again at the next check", day, e);
                failures.add(day + ": " + e.getMessage());
            }
        }
        return new Run(archived, failures);
    }
}
