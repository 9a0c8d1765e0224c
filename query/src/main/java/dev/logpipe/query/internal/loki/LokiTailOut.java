package dev.logpipe.query.internal.loki;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.store.read.IdBytes;
import dev.logpipe.query.internal.tail.TailOut;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * A Loki tail's websocket messages (docs/loki.md#tail): each poll's records that pass the query's pipeline, grouped by
 * stream, as one text message {@code {"streams":[{"stream":{...},"values":[["<ns>","<line>"]]}],"dropped_entries":...}}.
 * Records the tail could not send in time are reported in {@code dropped_entries} as one entry whose labels are
 * {@code {"logpipe_skipped":"<count>"}} at the end of the time they were observed in (logpipe counts them; it does not
 * know their labels). A send that the client does not take within {@code sendTimeout} fails the tail (a slow client
 * never holds a poll's memory longer). What it holds is one poll's records, bounded by the tail's poll. Used by the
 * tail's thread only.
 */
final class LokiTailOut implements TailOut {
    private static final RecordCodec CODEC = new RecordCodec();
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private final Session session;
    private final Pipeline pipeline;
    private final Duration sendTimeout;
    private final Map<SortedMap<String, String>, ArrayNode> streams = new LinkedHashMap<>();
    private long skipped;
    private long skippedTo;

    LokiTailOut(Session session, Pipeline pipeline, Duration sendTimeout) {
        this.session = session;
        this.pipeline = pipeline;
        this.sendTimeout = sendTimeout;
    }

    @Override
    public void record(IdBytes id, String source) throws IOException {
        LogRecord r;
        try {
            r = CODEC.decode(source.getBytes(StandardCharsets.UTF_8));
        } catch (RecordFormatException e) {
            throw new IOException("record " + id + " as stored does not decode: " + e.getMessage(), e);
        }
        Pipeline.Line line = new Pipeline.Line(Streams.labels(r), r.message());
        if (!pipeline.run(line)) {
            return;
        }
        long ns = r.eventTime().toEpochMilli() * NANOS_PER_MILLI;
        streams.computeIfAbsent(Streams.identity(line.labels), k -> Answer.JSON_NODES.arrayNode())
                .addArray()
                .add(Long.toString(ns))
                .add(line.text);
    }

    @Override
    public void skipped(long missed, long fromMillis, long toMillis) {
        skipped += missed;
        skippedTo = toMillis;
    }

    @Override
    public boolean isEmpty() {
        return streams.isEmpty() && skipped == 0;
    }

    @Override
    public void flush() throws Exception {
        if (isEmpty()) {
            return;
        }
        ObjectNode root = Answer.JSON_NODES.objectNode();
        Streams.write(streams, root.putArray("streams"));
        if (skipped > 0) {
            ObjectNode d = root.putArray("dropped_entries").addObject();
            d.putObject("labels").put("logpipe_skipped", Long.toString(skipped));
            d.put("timestamp", Long.toString(skippedTo * NANOS_PER_MILLI));
        } else {
            root.putNull("dropped_entries");
        }
        streams.clear();
        skipped = 0;
        Callback.Completable sent = new Callback.Completable();
        session.sendText(root.toString(), sent);
        await(sent);
    }

    @Override
    public void keepAlive() throws Exception {
        Callback.Completable sent = new Callback.Completable();
        session.sendPing(ByteBuffer.allocate(0), sent);
        await(sent);
    }

    private void await(Callback.Completable sent) throws Exception {
        try {
            sent.get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("the client took no message for " + sendTimeout + " (limits.query_timeout)", e);
        }
    }
}
