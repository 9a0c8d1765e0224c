package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.store.read.ShardCall;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster that accepts connections and never answers holds a query no longer than its deadline and a second: its
 * days time out (the query answers partial), where the request timeout (30 s) would have held the query's thread.
 */
class SilentClusterTest {
    private ServerSocket silent;
    private final List<Socket> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
    private Thread acceptor;

    @BeforeEach
    void aClusterThatNeverAnswers() throws Exception {
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(silent.accept()); // read nothing, answer nothing
                }
            } catch (java.io.IOException closed) {
                // the test is over
            }
        });
        acceptor.start();
    }

    @AfterEach
    void close() throws Exception {
        silent.close();
        acceptor.join();
        for (Socket s : accepted) {
            s.close();
        }
    }

    private OpenSearchShards shards() throws Exception {
        return OpenSearchShards.open(OpenSearchSettings.local(URI.create("http://127.0.0.1:" + silent.getLocalPort())));
    }

    private static ShardQuery all() {
        return ShardQuery.of("acme", ParsedQuery.ALL, 0, Long.MAX_VALUE / 2);
    }

    @Test
    void daysAskedTogetherTimeOutAtTheQuerysDeadlineAndASecond() throws Exception {
        OpenSearchShards shards = shards();
        List<ShardSearcher> searchers = new ArrayList<>();
        for (int d = 1; d <= 3; d++) {
            searchers.add(shards.open(ShardId.records("acme", LocalDate.of(2026, 12, d)))
                    .orElseThrow());
        }
        long started = System.nanoTime();
        List<ShardCall.Answer<Long>> answers =
                shards.callAll(searchers, new ShardCall.CountOf(all()), started + 300_000_000L);
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertThat(answers)
                .hasSize(3)
                .allSatisfy(a -> assertThat(a.failure()).isInstanceOf(ShardSearcher.TimedOut.class));
        assertThat(tookMillis).isBetween(1_000L, 10_000L);
    }

    @Test
    void aDayAskedAloneTimesOutAtTheQuerysDeadlineAndASecond() throws Exception {
        ShardSearcher day = shards().open(ShardId.records("acme", LocalDate.of(2026, 12, 1)))
                .orElseThrow();
        long started = System.nanoTime();
        assertThatThrownBy(() -> day.count(all(), started + 300_000_000L)).isInstanceOf(ShardSearcher.TimedOut.class);
        assertThat((System.nanoTime() - started) / 1_000_000).isBetween(1_000L, 10_000L);
    }
}
