package dev.logpipe.forwarder.tail;

import dev.logpipe.forwarder.parse.Emitter;
import dev.logpipe.forwarder.parse.StructuredLine;
import dev.logpipe.forwarder.parse.StructuredReader;
import dev.logpipe.forwarder.process.Attributes;
import dev.logpipe.forwarder.process.RecordFilter;
import dev.logpipe.forwarder.process.Transformer;
import dev.logpipe.forwarder.sink.Batch;
import dev.logpipe.forwarder.time.TimeParser;
import dev.logpipe.record.JsonBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies filters and transforms to parsed records, reads JSON/logfmt lines, finds the event time, and
 * collects the survivors in the current batch. Filters and the extract pattern see the record's text as read
 * (for container formats: the application's line). A line that is not valid JSON/logfmt is kept as plain text
 * with {@code fields.log.parse_error}; a time that does not parse leaves no event time. Both are counted, and
 * the first time failure of each file is logged with its text. Confined to the pipeline thread.
 */
final class RecordAssembler implements Emitter {
    private static final Logger log = LoggerFactory.getLogger(RecordAssembler.class);

    /** How the event time is found; {@code field} is an extract group, or null. */
    record EventTimes(String field, TimeParser parser, String layout) {
        static final EventTimes NONE = new EventTimes(null, null, null);
    }

    private final RecordFilter filter;
    private final Transformer transformer;
    private final StructuredReader reader;
    private final EventTimes times;
    private final boolean perRecordWork;
    private final Attributes shared;
    private final StructuredLine structured = new StructuredLine();
    private final JsonBuffer scratch = new JsonBuffer(256);
    private final Set<String> timeFailureLogged = new HashSet<>();
    private Batch batch;
    /** The file being read, for the offset no commit may pass (held-back container pieces), or null. */
    private Tailer tailer;

    private long filtered;
    private long truncated;
    private long parseFailures;
    private long timeFailures;

    RecordAssembler(RecordFilter filter, Transformer transformer) {
        this(filter, transformer, null, EventTimes.NONE);
    }

    /** @param reader the JSON or logfmt reader, or null for plain text */
    RecordAssembler(RecordFilter filter, Transformer transformer, StructuredReader reader, EventTimes times) {
        this.filter = filter;
        this.transformer = transformer;
        this.reader = reader;
        this.times = times;
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
        StructuredLine body = null;
        long eventTime = TimeParser.NONE;
        if (reader != null) {
            body = structured;
            int first = lines > 1 ? firstLine(bytes, off, len) : len;
            Map<String, String> taken = attrs == null ? Map.of() : attrs.fields();
            if (reader.read(bytes, off, first, taken, structured)) {
                if (first < len) {
                    structured.appendToMessage(bytes, off + first + 1, len - first - 1, scratch);
                }
                eventTime = structured.time();
                if (structured.badTime() != null) {
                    timeFailed(structured.badTime());
                }
            } else {
                parseFailures++;
            }
        }
        if (eventTime == TimeParser.NONE && times.field() != null && attrs != null) {
            String text = attrs.fields().get(times.field());
            if (text != null) {
                eventTime = times.parser().parse(text);
                if (eventTime == TimeParser.NONE) {
                    timeFailed(text);
                }
            }
        }
        if (eventTime == TimeParser.NONE) {
            eventTime = runtimeTime;
        }
        batch.add(
                bytes,
                off,
                len,
                startOffset,
                endOffset,
                commit(endOffset),
                lines,
                wasTruncated,
                attrs,
                body,
                eventTime,
                flags);
    }

    private void timeFailed(String text) {
        timeFailures++;
        String path = batch.source().path();
        if (timeFailureLogged.size() < 10_000 && timeFailureLogged.add(path)) {
            log.warn(
                    "event time not in layout {} in file {}: \"{}\"; the record is shipped without event_time "
                            + "(logged once per file, every failure counted in log_forwarder_time_parse_failures_total)",
                    times.layout(),
                    path,
                    text.length() > 200 ? text.substring(0, 200) + "..." : text);
        }
    }

    private static int firstLine(byte[] b, int off, int len) {
        for (int i = 0; i < len; i++) {
            if (b[off + i] == '\n') {
                return i;
            }
        }
        return len;
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
