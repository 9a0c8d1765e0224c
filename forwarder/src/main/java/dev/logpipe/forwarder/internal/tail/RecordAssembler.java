package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.ForwarderConfig.LineFormat;
import dev.logpipe.forwarder.internal.parse.Emitter;
import dev.logpipe.forwarder.internal.parse.StructuredReader;
import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.forwarder.internal.process.RecordFilter;
import dev.logpipe.forwarder.internal.process.Transformer;
import dev.logpipe.forwarder.internal.sink.Batch;
import dev.logpipe.forwarder.internal.time.TimeParser;
import java.nio.charset.StandardCharsets;

/**
 * Applies filters and transforms to parsed records and collects the survivors in the current batch: decoded and
 * encoded at once by its {@link RecordDecoder}, or, in a {@link Batch#deferEncoding deferred} batch, copied for a
 * parse thread to decode. Filters and the extract pattern see the record's text as read (for container formats:
 * the application's line). A line that is not valid JSON/logfmt is kept as plain text with
 * {@code fields.log.parse_error}; a time that does not parse leaves no event time. Both are counted, and the first
 * time failure of each file is logged with its text. Confined to the pipeline thread.
 * {@code record} (the {@link Emitter} call) takes the record as bytes, offsets and primitives (see {@link Emitter}) and
 * hands it on as a {@link Batch.Line}, which C2 removes on this path (docs/benchmarks.md, "Value records on the
 * per-line path"); a deferred record is copied into the batch's arrays by {@link Batch#defer}, with primitives too.
 */
final class RecordAssembler implements Emitter {
    /** How the event time is found; {@code field} is an extract group, or null. */
    record EventTimes(String field, TimeParser parser, String layout) {
        static final EventTimes NONE = new EventTimes(null, null, null);
    }

    private final RecordFilter filter;
    private final Transformer transformer;
    private final RecordDecoder decoder;
    /** What records are read as when no file is set ({@link #into(Batch)}), or null: plain text. */
    private final LineContent fixedContent;

    private final boolean perRecordWork;
    private final Attributes shared;
    private Batch batch;
    /** The file being read, for its content and the offset no commit may pass, or null. */
    private Tailer tailer;

    private LineContent content;

    private long filtered;
    private long truncated;

    /** Every record read with {@code reader} (null: plain text), whatever the file's content. */
    RecordAssembler(RecordFilter filter, Transformer transformer, StructuredReader reader, EventTimes times) {
        this(
                filter,
                transformer,
                new RecordDecoder(c -> reader, times, new RecordDecoder.FailureLog()),
                reader == null ? null : new LineContent(LineFormat.JSON, KeyMapping.DEFAULT));
    }

    /** Records of each file read as its {@link Tailer#content()}, decoded by {@code decoder} when not deferred. */
    RecordAssembler(RecordFilter filter, Transformer transformer, RecordDecoder decoder) {
        this(filter, transformer, decoder, null);
    }

    private RecordAssembler(
            RecordFilter filter, Transformer transformer, RecordDecoder decoder, LineContent fixedContent) {
        this.filter = filter;
        this.transformer = transformer;
        this.decoder = decoder;
        this.fixedContent = fixedContent;
        this.perRecordWork = !filter.isPassThrough() || !transformer.isStatic();
        Attributes s = transformer.staticAttributes();
        this.shared = s.equals(Attributes.NONE) ? null : s;
    }

    Batch into(Batch b) {
        return into(b, null);
    }

    /** Collects into {@code b} the records of {@code t} (null: no commit limit). */
    Batch into(Batch b, Tailer t) {
        this.batch = b;
        this.tailer = t;
        this.content = fixedContent != null || t == null ? fixedContent : t.content();
        return b;
    }

    /** The offset a record ending at {@code endOffset} may commit: never past a held-back container piece. */
    private long commit(long endOffset) {
        return tailer == null ? endOffset : Math.min(endOffset, tailer.holdFloor());
    }

    @Override
    public void record(
            byte[] bytes,
            int off,
            int len,
            long startOffset,
            long endOffset,
            int lines,
            boolean wasTruncated,
            long runtimeTime,
            int flags) {
        if (wasTruncated) {
            truncated++;
        }
        Attributes attrs = shared;
        if (perRecordWork) {
            String text = new String(bytes, off, len, StandardCharsets.UTF_8);
            if (!filter.accepts(text)) {
                batch.skip(commit(endOffset));
                filtered++;
                return;
            }
            attrs = transformer.apply(text);
            if (attrs == null) {
                batch.skip(commit(endOffset));
                filtered++;
                return;
            }
            if (attrs.equals(Attributes.NONE)) {
                attrs = null;
            }
        }
        Batch.Line line = new Batch.Line(
                bytes, off, len, startOffset, endOffset, commit(endOffset), lines, wasTruncated, runtimeTime, flags);
        if (batch.deferred()) {
            batch.defer(line, attrs);
            return;
        }
        decoder.add(batch, content, line, attrs);
    }

    long takeFiltered() {
        long n = filtered;
        filtered = 0;
        return n;
    }

    long takeTruncated() {
        long n = truncated;
        truncated = 0;
        return n;
    }

    long takeParseFailures() {
        return decoder.takeParseFailures();
    }

    long takeTimeFailures() {
        return decoder.takeTimeFailures();
    }
}
