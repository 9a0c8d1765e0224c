package dev.logpipe.collector.internal.compat.loki;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.collector.internal.compat.DecodedLines;
import dev.logpipe.collector.internal.compat.JsonSlices;
import dev.logpipe.collector.internal.compat.WholeBody;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * A Loki push in JSON ({@code {"streams":[{"stream":{labels},"values":[["<unix ns>","line",{metadata}],...]}]}}) as one
 * record per value, walked with {@link JsonSlices}: one stream's labels and one value parsed at a time.
 */
final class LokiJsonLines extends DecodedLines {
    private static final BigInteger BILLION = BigInteger.valueOf(1_000_000_000L);

    private final JsonSlices json;
    private final int maxRecordBytes;
    private final JsonSlices.Cursor streams;
    private JsonSlices.Cursor values;
    private Map<String, String> labels = Map.of();

    private LokiJsonLines(JsonSlices json, int maxRecordBytes) throws IOException {
        this.json = json;
        this.maxRecordBytes = maxRecordBytes;
        this.streams = json.array(json.whole(), "streams", JsonToken.START_OBJECT);
    }

    static LokiJsonLines open(InputStream in, int maxRecordBytes, LongPredicate mayHold) throws IOException {
        return new LokiJsonLines(
                new JsonSlices(WholeBody.read(in, mayHold), mayHold, "a Loki push request"), maxRecordBytes);
    }

    @Override
    protected boolean advance() throws IOException {
        while (true) {
            if (values != null) {
                JsonSlices.Slice v = values.next();
                if (v != null) {
                    value(v);
                    return true;
                }
                values = null;
            }
            JsonSlices.Slice s = streams == null ? null : streams.next();
            if (s == null) {
                return false;
            }
            JsonSlices.Slice l = json.object(s, "stream");
            labels = new LinkedHashMap<>();
            if (l != null) {
                for (Iterator<Map.Entry<String, JsonNode>> it = json.tree(l).fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    labels.put(e.getKey(), e.getValue().asText());
                }
            }
            values = json.array(s, "values", JsonToken.START_ARRAY);
        }
    }

    private void value(JsonSlices.Slice v) throws IOException {
        if (v.len() > maxRecordBytes) {
            tooLong(v.len());
            return;
        }
        JsonNode a = json.tree(v);
        if (a.size() < 2 || !a.get(0).isTextual() || !a.get(1).isTextual()) {
            refuse("a value must be [\"<unix epoch nanoseconds>\", \"<line>\", {structured metadata}]", json.bytes(v));
            return;
        }
        BigInteger[] t;
        try {
            t = new BigInteger(a.get(0).asText()).divideAndRemainder(BILLION);
        } catch (NumberFormatException e) {
            refuse("the timestamp is not unix epoch nanoseconds: " + a.get(0).asText(), json.bytes(v));
            return;
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        if (a.size() > 2 && a.get(2).isObject()) {
            a.get(2)
                    .fields()
                    .forEachRemaining(e -> metadata.put(e.getKey(), e.getValue().asText()));
        }
        try {
            emit(LokiMapping.toLine(
                    labels, t[0].longValueExact(), t[1].intValue(), a.get(1).asText(), metadata));
        } catch (ArithmeticException | DateTimeException e) {
            refuse("the timestamp is out of range: " + a.get(0).asText(), json.bytes(v));
        }
    }

    @Override
    protected long contextBytes() {
        return json.body().length;
    }
}
