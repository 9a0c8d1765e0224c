package dev.logpipe.forwarder.internal.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;

/**
 * {@code parser.format: json}: one JSON object per line. The common shapes are read by {@link JsonFastPath} in one
 * pass over the bytes; the rest (and every invalid line) by Jackson's streaming parser (no tree).
 * Nested objects are flattened with dots, arrays kept as their JSON text, {@code null}s dropped, as
 * {@code RecordCodec} does with a record's fields. Anything but one object is an error.
 */
public final class JsonLineReader extends StructuredReader {
    private final JsonFactory factory;
    private final ObjectMapper arrays;
    private final JsonFastPath fast;

    public JsonLineReader(KeyMapping keys, String timeKey, TimeParser time) {
        super(new KeyRoles(keys, timeKey), time);
        this.factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(RecordCodec.MAX_NESTING_DEPTH + 2)
                        .build())
                .build();
        this.arrays = new ObjectMapper(factory);
        this.fast = new JsonFastPath(roles(), time);
    }

    @Override
    boolean parse(byte[] b, int off, int len) {
        if (!transformSetsFields() && fast.read(b, off, len, out)) {
            return true;
        }
        out.reset(); // the fast path decides nothing: the line is read again, by Jackson
        return slowParse(b, off, len);
    }

    /** Jackson's streaming parser: every line the fast path leaves, and the judge of what is invalid. */
    private boolean slowParse(byte[] b, int off, int len) {
        try (JsonParser p = factory.createParser(b, off, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                out.error = "not a JSON object";
                return false;
            }
            if (!object(p, "", 1)) {
                return false;
            }
            if (p.nextToken() != null) {
                out.error = "content after the JSON object";
                return false;
            }
            return true;
        } catch (IOException e) {
            String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            out.error = "invalid JSON: " + (m.length() > 200 ? m.substring(0, 200) : m);
            return false;
        }
    }

    private boolean object(JsonParser p, String prefix, int depth) throws IOException {
        if (depth > RecordCodec.MAX_NESTING_DEPTH) {
            out.error = "objects nested deeper than " + RecordCodec.MAX_NESTING_DEPTH + " levels";
            return false;
        }
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            String name = prefix.isEmpty() ? key : prefix + "." + key;
            switch (p.nextToken()) {
                case START_OBJECT -> {
                    if (!object(p, name, depth + 1)) {
                        return false;
                    }
                }
                case START_ARRAY -> {
                    String text = arrays.readTree(p).toString();
                    string(name, text.toCharArray(), 0, text.length());
                }
                case VALUE_STRING -> string(name, p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE ->
                    literal(name, p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                case VALUE_NULL -> {}
                default -> {
                    out.error = "unexpected JSON token " + p.currentToken();
                    return false;
                }
            }
            if (out.error != null) {
                return false;
            }
        }
        return t == JsonToken.END_OBJECT;
    }
}
