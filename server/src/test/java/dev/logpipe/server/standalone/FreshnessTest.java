package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.indexer.stage.PartitionStages;
import dev.logpipe.query.IndexerProgress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the standalone's status tells a tenant of the indexer: time only, never a count of the shared partitions. */
class FreshnessTest {
    private static PartitionStages partition(String name, long durable, long queryable, Double queryableAge) {
        return new PartitionStages(
                name, durable, durable, queryable, queryable, queryable, 0.1, 0.2, 0.3, queryableAge, 0.5);
    }

    @Test
    void recordsWaitingMakeTheLagTheAgeOfTheNewestSearchableRecord() {
        IndexerProgress.Snapshot s = Standalone.progress(
                List.of(partition("logpipe.records-0", 10, 10, 0.2), partition("logpipe.records-1", 14, 9, 3.5)));
        assertThat(s.lagSeconds()).isEqualTo(3.5);
        assertThat(s.stageAgeSeconds()).containsKeys("durable", "read", "indexed", "queryable");
        assertThat(s.stageAgeSeconds().get("queryable")).isEqualTo(0.2);
    }

    @Test
    void nothingWaitingIsNoLagHoweverOldTheNewestRecordIs() {
        IndexerProgress.Snapshot s = Standalone.progress(List.of(
                partition("logpipe.records-0", 10, 10, 600.0), partition("logpipe.dead-letter-0", 5, 1, 900.0)));
        assertThat(s.lagSeconds()).isEqualTo(0.0);
    }
}
