package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.ArchivedRecord;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** Reads every record of a hot day shard in {@code OLDEST_FIRST} order (time ascending, id descending), a page at a time, through the read seam. */
final class HotDay {
    static final int PAGE = 2000;
    private static final RecordCodec CODEC = new RecordCodec();

    @FunctionalInterface
    interface Sink {
        void accept(ArchivedRecord record, LogRecord decoded) throws IOException;
    }

    private HotDay() {}

    /** Hands each record of the shard to {@code sink}; returns how many. */
    static long read(ShardSearcher searcher, String tenant, Sink sink) throws IOException {
        ShardQuery all = ShardQuery.of(tenant, ParsedQuery.ALL, Long.MIN_VALUE, Long.MAX_VALUE);
        After after = null;
        long n = 0;
        while (true) {
            ShardSearcher.Keys keys = searcher.keys(all, ShardSearcher.Order.OLDEST_FIRST, after, PAGE, Long.MAX_VALUE);
            if (keys.keys().isEmpty()) {
                return n;
            }
            int[] docs = new int[keys.keys().size()];
            for (int i = 0; i < docs.length; i++) {
                docs[i] = keys.keys().get(i).doc();
            }
            String[] sources = searcher.sources(docs);
            for (int i = 0; i < docs.length; i++) {
                ShardSearcher.Key k = keys.keys().get(i);
                LogRecord decoded = decode(sources[i], searcher);
                sink.accept(ArchivedRecord.of(decoded, Instant.ofEpochMilli(k.eventTimeMillis()), sources[i]), decoded);
                n++;
            }
            ShardSearcher.Key last = keys.keys().get(docs.length - 1);
            after = new After(last.eventTimeMillis(), last.recordId().text());
        }
    }

    static LogRecord decode(String source, ShardSearcher searcher) throws IOException {
        try {
            return CODEC.decode(source.getBytes(StandardCharsets.UTF_8));
        } catch (RecordFormatException e) {
            throw new IOException("a stored source of " + searcher.shard() + " does not decode: " + e.getMessage(), e);
        }
    }
}
