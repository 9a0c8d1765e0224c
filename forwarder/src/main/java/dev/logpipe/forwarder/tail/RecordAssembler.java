package dev.logpipe.forwarder.tail;

import dev.logpipe.forwarder.parse.Emitter;
import dev.logpipe.forwarder.process.Attributes;
import dev.logpipe.forwarder.process.RecordFilter;
import dev.logpipe.forwarder.process.Transformer;
import dev.logpipe.forwarder.sink.Batch;
import java.nio.charset.StandardCharsets;

/** Applies filters and transforms to parsed records and collects the survivors in the current batch. */
final class RecordAssembler implements Emitter {
    private final RecordFilter filter;
    private final Transformer transformer;
    private final boolean perRecordWork;
    private final Attributes shared;
    private Batch batch;
    private long filtered;
    private long truncated;

    RecordAssembler(RecordFilter filter, Transformer transformer) {
        this.filter = filter;
        this.transformer = transformer;
        this.perRecordWork = !filter.isPassThrough() || !transformer.isStatic();
        Attributes s = transformer.staticAttributes();
        this.shared = s.equals(Attributes.NONE) ? null : s;
    }

    Batch into(Batch b) {
        this.batch = b;
        return b;
    }

    @Override
    public void record(byte[] bytes, int off, int len, long startOffset, long endOffset, int lines,
                       boolean wasTruncated) {
        if (wasTruncated) {
            truncated++;
        }
        Attributes attrs = shared;
        if (perRecordWork) {
            String text = new String(bytes, off, len, StandardCharsets.UTF_8);
            if (!filter.accepts(text)) {
                batch.skip(endOffset);
                filtered++;
                return;
            }
            attrs = transformer.apply(text);
            if (attrs == null) {
                batch.skip(endOffset);
                filtered++;
                return;
            }
            if (attrs.equals(Attributes.NONE)) {
                attrs = null;
            }
        }
        batch.add(bytes, off, len, startOffset, endOffset, lines, wasTruncated, attrs);
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
}
