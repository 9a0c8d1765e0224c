package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queries a new user types first find what they mean in a real Lucene shard (docs/search.md): {@code *},
 * {@code field:*}, purely negative queries, lowercase operators, {@code level:error} and bare structured names.
 * {@code QueryParityTest} holds OpenSearch to the same answers.
 */
class QueryReadingsSearchTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T08:00:02.017Z");

    @TempDir
    Path data;

    static IndexRecord record(String id, Level level, String service, String region, Long tookMs) throws Exception {
        LogRecord.Builder b = LogRecord.builder("request " + id + " done")
                .recordId(id)
                .tenantId("acme")
                .eventTime(T)
                .observedTime(T)
                .service(service)
                .level(level);
        if (region != null) {
            b.region(region);
        }
        if (tookMs != null) {
            b.field("took_ms", tookMs);
        }
        byte[] line = CODEC.encode(b.build());
        return new IndexRecord(CODEC.decode(line), T, T, line, 0, line.length);
    }

    @Test
    void whatPeopleTypeFirstFindsWhatTheyMean() throws Exception {
        ShardId shard = ShardId.records("acme", LocalDate.parse("2026-12-01"));
        List<IndexRecord> records = List.of(
                record("a", Level.ERROR, "auth", "us-east-1", 812L),
                record("b", Level.INFO, "auth", null, 20L),
                record("c", Level.ERROR, "billing", "eu-west-1", null),
                record("d", Level.WARN, "billing", null, null));
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.fixed(T))) {
            store.write(shard, records);
            store.refresh();
            try (ShardSearcher s = new LiveShards(store).open(shard).orElseThrow()) {
                assertThat(count(s, "*")).isEqualTo(4);
                assertThat(count(s, "*:*")).isEqualTo(4);
                assertThat(count(s, "region:*")).isEqualTo(2);
                assertThat(count(s, "took_ms:*")).isEqualTo(2);
                assertThat(count(s, "fields.took_ms:*")).isEqualTo(2);
                assertThat(count(s, "level:*")).isEqualTo(4);
                assertThat(count(s, "message:*")).isEqualTo(4);
                assertThat(count(s, "event_time:*")).isEqualTo(4);
                assertThat(count(s, "trace_id:*")).isZero();
                assertThat(count(s, "NOT level:INFO")).isEqualTo(3);
                assertThat(count(s, "-level:INFO")).isEqualTo(3);
                assertThat(count(s, "NOT level:INFO AND NOT level:WARN")).isEqualTo(2);
                assertThat(count(s, "NOT region:*")).isEqualTo(2);
                assertThat(count(s, "level:ERROR and service:auth")).isEqualTo(1);
                assertThat(count(s, "level:ERROR or service:auth")).isEqualTo(3);
                assertThat(count(s, "service:billing and not level:error")).isEqualTo(1);
                assertThat(count(s, "level:error")).isEqualTo(2);
                assertThat(count(s, "level:warning")).isEqualTo(1);
                assertThat(count(s, "took_ms:>500")).isEqualTo(1);
                assertThat(count(s, "took_ms:20")).isEqualTo(1);
            }
        }
    }

    static long count(ShardSearcher s, String q) throws Exception {
        return StoreReads.count(s, "acme", q);
    }
}
