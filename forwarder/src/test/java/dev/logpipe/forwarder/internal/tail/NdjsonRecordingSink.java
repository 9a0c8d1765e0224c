package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.sink.Sink;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordFormatException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A fake sink (our own seam) that acknowledges every batch and keeps its records, decoded by RecordCodec. */
final class NdjsonRecordingSink implements Sink {
    private static final RecordCodec CODEC = new RecordCodec();
    private final List<LogRecord> records = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();

    @Override
    public synchronized void publish(Batch batch) throws IOException {
        for (int i = 0; i < batch.size(); i++) {
            int from = batch.wireStart(i);
            byte[] a = batch.wire().array();
            lines.add(new String(a, from, batch.wireEnd(i) - from, StandardCharsets.UTF_8));
            try {
                records.add(CODEC.decode(a, from, batch.wireEnd(i) - from));
            } catch (RecordFormatException e) {
                throw new AssertionError("the forwarder wrote an invalid record: " + lines.get(lines.size() - 1), e);
            }
        }
    }

    synchronized List<LogRecord> records() {
        return List.copyOf(records);
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public Format format() {
        return Format.NDJSON;
    }

    @Override
    public String describe() {
        return "ndjson-recording";
    }

    @Override
    public void close() {}
}
