package dev.logpipe.collector.internal.compat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.collector.internal.ingest.BodyException;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * A JSON document held whole ({@link WholeBody}) and walked without parsing it into one tree: a streaming parser
 * finds the extent of each part, and only the parts asked for are parsed into trees, each reserved first at
 * {@link #TREE_FACTOR} times its length. So a body of many small records needs the body plus one record's tree.
 */
public final class JsonSlices {
    /** A JSON tree of small nodes holds up to about this many bytes per input byte. */
    public static final int TREE_FACTOR = 32;

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Bytes {@code [off, off + len)} of the body: one JSON value. */
    public record Slice(int off, int len) {}

    private final byte[] body;
    private final LongPredicate mayHold;

    /** @throws BodyException 400 when the body is not one JSON object */
    public JsonSlices(byte[] body, LongPredicate mayHold, String what) throws BodyException {
        this.body = body;
        this.mayHold = mayHold;
        try (JsonParser check = FACTORY.createParser(body)) {
            if (check.nextToken() != JsonToken.START_OBJECT) {
                throw new BodyException(400, "the body is not " + what + " (not a JSON object)");
            }
            check.skipChildren();
            if (check.nextToken() != null) {
                throw new BodyException(400, "the body has content after the JSON object");
            }
        } catch (JsonProcessingException e) {
            throw new BodyException(400, "the body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BodyException(400, "the body is not valid JSON: " + e.getMessage());
        }
    }

    public Slice whole() {
        return new Slice(0, body.length);
    }

    public byte[] body() {
        return body;
    }

    public byte[] bytes(Slice s) {
        return Arrays.copyOfRange(body, s.off, s.off + s.len);
    }

    /** The elements of one array that start with {@code element} (others are skipped), in order. */
    public final class Cursor {
        private final JsonParser p;
        private final int base;
        private final JsonToken element;

        private Cursor(JsonParser p, int base, JsonToken element) {
            this.p = p;
            this.base = base;
            this.element = element;
        }

        public Slice next() throws IOException {
            while (true) {
                JsonToken t = p.nextToken();
                if (t == null || t == JsonToken.END_ARRAY) {
                    p.close();
                    return null;
                }
                if (t == element) {
                    return extent(p, base);
                }
                p.skipChildren();
            }
        }
    }

    private static Slice extent(JsonParser p, int base) throws IOException {
        int start = base + (int) p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        int end = base + (int) p.currentLocation().getByteOffset();
        return new Slice(start, end - start);
    }

    /** The elements of the array field {@code name} of the object {@code obj}, or null when it has none. */
    public Cursor array(Slice obj, String name, JsonToken element) throws IOException {
        JsonParser p = FACTORY.createParser(body, obj.off, obj.len);
        p.nextToken();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals(name) && v == JsonToken.START_ARRAY) {
                return new Cursor(p, obj.off, element);
            }
            p.skipChildren();
        }
        p.close();
        return null;
    }

    /** The object field {@code name} of {@code obj}, or null. */
    public Slice object(Slice obj, String name) throws IOException {
        try (JsonParser p = FACTORY.createParser(body, obj.off, obj.len)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals(name) && v == JsonToken.START_OBJECT) {
                    return extent(p, obj.off);
                }
                p.skipChildren();
            }
        }
        return null;
    }

    /** {@code s} parsed into a tree, its memory reserved first (503 when it cannot be). */
    public JsonNode tree(Slice s) throws IOException {
        if (!mayHold.test(body.length + (long) TREE_FACTOR * s.len)) {
            throw WholeBody.overBound();
        }
        return JSON.readTree(body, s.off, s.len);
    }
}
