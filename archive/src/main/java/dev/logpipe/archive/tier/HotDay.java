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
    /** Records per sorted pass over the shard: each pass visits every document, so few large pages. */
    static final int PAGE = 50_000;
    /** Bytes of stored sources a pass holds at most; the rest of its page is read by the next pass. */
    static final long PAGE_BYTES = 32L << 20;

    private static final RecordCodec CODEC = new RecordCodec();

    @FunctionalInterface
    interface Sink {
        void accept(ArchivedRecord record, LogRecord decoded) throws IOException;
    }

    private HotDay() {}

    /** Hands each record of the shard to {@code sink}; returns how many. */
    static long read(ShardSearcher searcher, String tenant, Sink sink) throws IOException {
        return read(searcher, tenant, PAGE_BYTES, sink);
    }

    /** As {@link #read(ShardSearcher, String, Sink)}, holding at most {@code pageBytes} of sources at once. */
    static long read(ShardSearcher searcher, String tenant, long pageBytes, Sink sink) throws IOException {
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
            long[] used = {0};
            // at most pageBytes of sources held at once (the first always read, so every pass moves on)
            String[] sources = searcher.sources(docs, (index, bytes) -> {
                if (index > 0 && used[0] + bytes > pageBytes) {
                    return false;
                }
                used[0] += bytes;
                return true;
            });
            ShardSearcher.Key last = null;
            for (int i = 0; i < docs.length && sources[i] != null; i++) {
                ShardSearcher.Key k = keys.keys().get(i);
                LogRecord decoded = decode(sources[i], searcher);
                sink.accept(ArchivedRecord.of(decoded, Instant.ofEpochMilli(k.eventTimeMillis()), sources[i]), decoded);
                sources[i] = null;
                last = k;
                n++;
            }
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
