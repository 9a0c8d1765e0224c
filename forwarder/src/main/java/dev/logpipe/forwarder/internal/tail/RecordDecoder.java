package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.parse.StructuredLine;
import dev.logpipe.forwarder.internal.parse.StructuredReader;
import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns records that passed the filters into encoded batch entries: reads JSON/logfmt lines, finds the event
 * time, and encodes. Runs on the reading thread ({@link #add}) or on a parse thread for a whole deferred batch
 * ({@link #encode}). One instance per thread (its readers keep per-line state); the log of time failures is
 * shared.
 * {@code add} takes the record as a {@link Batch.Line}, made per record: C2 inlines this path from
 * {@link RecordAssembler#record} and, in steady state, removes the object (docs/benchmarks.md, "Value records on the
 * per-line path": throughput within noise; one young collection more over 3 M lines, ~20 MB made before C2 compiled
 * the path, where an object kept for every line would be ~190 MB). {@code decode}, which also serves the deferred records read back from
 * a batch's arrays, takes the parts it needs as primitives.
 */
final class RecordDecoder {
    private static final Logger log = LoggerFactory.getLogger(RecordDecoder.class);

    /** Logs the first time failure of each file once, whichever thread meets it. */
    static final class FailureLog {
        private final Set<String> logged = ConcurrentHashMap.newKeySet();

        void timeFailed(String layout, String path, String text) {
            if (logged.size() < 10_000 && logged.add(path)) {
                log.warn(
                        "event time not in layout {} in file {}: \"{}\"; the record is shipped without event_time "
                                + "(logged once per file, every failure counted in "
                                + "log_forwarder_time_parse_failures_total)",
                        layout,
                        path,
                        text.length() > 200 ? text.substring(0, 200) + "..." : text);
            }
        }

        private boolean readerFailureLogged;

        synchronized void readerFailed(String path, RuntimeException e) {
            if (!readerFailureLogged) {
                readerFailureLogged = true;
                log.error("reading a line of {} failed; it is shipped as plain text (logged once)", path, e);
            }
        }
    }

    private final Function<LineContent, StructuredReader> newReader;
    private final Map<LineContent, StructuredReader> readers = new IdentityHashMap<>();
    private final RecordAssembler.EventTimes times;
    private final FailureLog failures;
    private final StructuredLine structured = new StructuredLine();
    private final JsonBuffer scratch = new JsonBuffer(256);
    private LineContent lastContent;
    private StructuredReader lastReader;
    private long eventTime;
    private long parseFailures;
    private long timeFailures;

    RecordDecoder(
            Function<LineContent, StructuredReader> newReader, RecordAssembler.EventTimes times, FailureLog failures) {
        this.newReader = newReader;
        this.times = times;
        this.failures = failures;
    }

    /** Decodes and appends one record to {@code batch} (an eagerly encoded one); {@code content} null: plain text. */
    void add(Batch batch, LineContent content, Batch.Line l, Attributes attrs) {
        StructuredLine body = decode(batch, content, l.bytes(), l.off(), l.len(), l.lines(), attrs, l.runtimeTime());
        batch.add(l, attrs, body, eventTime);
    }

    /** Decodes and encodes every record {@link Batch#defer deferred} into {@code batch}, in order. */
    void encode(Batch batch, LineContent content) {
        byte[] bytes = batch.deferredBytes();
        for (int i = 0; i < batch.size(); i++) {
            int off = batch.deferredOffset(i);
            int len = batch.deferredLength(i);
            Attributes attrs = batch.deferredAttributes(i);
            StructuredLine body =
                    decode(batch, content, bytes, off, len, batch.lines(i), attrs, batch.deferredRuntimeTime(i));
            batch.encodeDeferred(i, body, eventTime);
        }
    }

    /** The line as a structured body (or null: plain text); leaves the record's event time in {@link #eventTime}. */
    private StructuredLine decode(
            Batch batch, LineContent content, byte[] bytes, int off, int len, int lines, Attributes attrs, long rt) {
        StructuredLine body = null;
        long time = TimeParser.NONE;
        if (content != null) {
            StructuredReader reader = reader(content);
            int first = lines > 1 ? firstLine(bytes, off, len) : len;
            Map<String, String> taken = attrs == null ? Map.of() : attrs.fields();
            try {
                body = structured;
                if (reader.read(bytes, off, first, taken, structured)) {
                    if (first < len) {
                        structured.appendToMessage(bytes, off + first + 1, len - first - 1, scratch);
                    }
                    time = structured.time();
                    if (structured.badTime() != null) {
                        timeFailed(batch, structured.badTime());
                    }
                } else {
                    parseFailures++;
                }
            } catch (RuntimeException e) {
                // A reader bug on some input: the line still goes out, as its text.
                body = null;
                parseFailures++;
                failures.readerFailed(batch.source().path(), e);
            }
        }
        if (time == TimeParser.NONE && times.field() != null && attrs != null) {
            String text = attrs.fields().get(times.field());
            if (text != null) {
                time = times.parser().parse(text);
                if (time == TimeParser.NONE) {
                    timeFailed(batch, text);
                }
            }
        }
        eventTime = time == TimeParser.NONE ? rt : time;
        return body;
    }

    private StructuredReader reader(LineContent content) {
        if (content != lastContent) {
            lastReader = readers.computeIfAbsent(content, newReader);
            lastContent = content;
        }
        return lastReader;
    }

    private void timeFailed(Batch batch, String text) {
        timeFailures++;
        failures.timeFailed(times.layout(), batch.source().path(), text);
    }

    private static int firstLine(byte[] b, int off, int len) {
        for (int i = 0; i < len; i++) {
            if (b[off + i] == '\n') {
                return i;
            }
        }
        return len;
    }

    long takeParseFailures() {
        long n = parseFailures;
        parseFailures = 0;
        return n;
    }

    long takeTimeFailures() {
        long n = timeFailures;
        timeFailures = 0;
        return n;
    }
}
