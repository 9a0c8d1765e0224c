package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A search's timeout is the time left in whole seconds, rounded up, so the searches of repeated queries with the same
 * budget carry the same body (OpenSearch's request cache keys on it) and never less than the time left.
 */
class SearchTimeoutTest {
    @Test
    void theTimeLeftIsRoundedUpToWholeSeconds() {
        assertThat(OpenSearchShardSearcher.timeout(29_987_000_000L)).isEqualTo("30s");
        assertThat(OpenSearchShardSearcher.timeout(29_001_000_000L)).isEqualTo("30s");
        assertThat(OpenSearchShardSearcher.timeout(30_000_000_000L)).isEqualTo("30s");
        assertThat(OpenSearchShardSearcher.timeout(1_000_000L)).isEqualTo("1s");
    }

    @Test
    void aDeadlineAlreadyPassedStillSendsOneSecond() {
        assertThat(OpenSearchShardSearcher.timeout(0)).isEqualTo("1s");
        assertThat(OpenSearchShardSearcher.timeout(-5_000_000_000L)).isEqualTo("1s");
    }
}
