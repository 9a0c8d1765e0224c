package dev.logpipe.indexer.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SearchLagTest {
    static PartitionStages stages(String partition, long durable, long queryable, Double queryableAge) {
        return new PartitionStages(
                partition, durable, queryable, queryable, queryable, queryable, 1.0, 1.0, 1.0, queryableAge, 1.0);
    }

    @Test
    void recordsWaitingAreSummedAndTheOldestNewestSearchableAgeIsTheLagLeavingDeadLettersOut() {
        SearchLag lag = SearchLag.of(
                List.of(
                        stages("logpipe.records-0", 120, 100, 4.0),
                        stages("logpipe.records-1", 50, 45, 9.5),
                        stages("logpipe.records-2", 70, 70, 300.0), // caught up: its age is not lag
                        stages("logpipe.dead-letter-0", 1000, 0, 600.0)),
                "logpipe.dead-letter");

        assertThat(lag).isEqualTo(new SearchLag(25, 9.5));
    }

    @Test
    void nothingWaitingIsNoLagAndAWaitingPartitionWithNothingSearchableIsUnknown() {
        assertThat(SearchLag.of(List.of(stages("t-0", 10, 10, null)), "dl")).isEqualTo(new SearchLag(0, 0.0));
        assertThat(SearchLag.of(List.of(stages("t-0", 10, 0, null)), "dl").seconds())
                .isNaN();
    }
}
