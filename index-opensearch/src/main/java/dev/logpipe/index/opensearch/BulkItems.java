package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Documents encoded as {@code _bulk} lines before they are sent, already cut into bodies of {@code bulk_bytes} (a body
 * passes it by its last document only), so the thread that sends only sends: encoding is done ahead, on another thread
 * (the indexer's decode thread, {@link OpenSearchStore#prepare}), and a body goes out as the array it was encoded in,
 * never copied. Items sent again (refused for load) are copied out into bodies of their own ({@link #bodies(List)}).
 * Memory: the encoded lines, about twice the records' own bytes, and three ints per item.
 */
final class BulkItems {
    /** Writes one item's lines ({@code action\ndocument\n}) through the body's generator. */
    @FunctionalInterface
    interface Encoder<T> {
        void encode(JsonGenerator g, T item) throws IOException;
    }

    /** One body to send: {@code bytes[0, length)}, holding the items at these positions of the whole, in order. */
    record Body(byte[] bytes, int length, int[] items) {}

    /** A buffer whose array is handed out as it is (a {@link ByteArrayOutputStream} copies it). */
    private static final class Buffer extends ByteArrayOutputStream {
        Buffer(int capacity) {
            super(capacity);
        }

        byte[] array() {
            return buf;
        }
    }

    /** Arrays of the first cut larger than this are not made ahead of need (they grow), whatever the estimate. */
    private static final int MOST_AHEAD = 64 * 1024 * 1024;

    private final long bulkBytes;
    private final List<Body> firstCut;
    /** Per item: its body in {@link #firstCut}, and where its lines start and end in that body. */
    private final int[] bodyOf;

    private final int[] from;
    private final int[] to;

    private BulkItems(long bulkBytes, List<Body> firstCut, int[] bodyOf, int[] from, int[] to) {
        this.bulkBytes = bulkBytes;
        this.firstCut = firstCut;
        this.bodyOf = bodyOf;
        this.from = from;
        this.to = to;
    }

    /**
     * Encodes {@code items} in order into bodies of about {@code bulkBytes}; {@code sizeHint} guesses an item's encoded
     * size, so a body's array is made once at about its final size.
     */
    static <T> BulkItems encode(List<T> items, Encoder<T> encoder, long bulkBytes, ToLongFunction<T> sizeHint)
            throws IOException {
        int n = items.size();
        int[] bodyOf = new int[n];
        int[] from = new int[n];
        int[] to = new int[n];
        List<Body> bodies = new ArrayList<>();
        int i = 0;
        while (i < n) {
            Buffer body = new Buffer(capacity(items, i, bulkBytes, sizeHint));
            int first = i;
            try (JsonGenerator g = OpenSearchDocuments.generator(body)) {
                while (i < n && (i == first || body.size() < bulkBytes)) {
                    from[i] = body.size();
                    encoder.encode(g, items.get(i));
                    g.flush(); // the item's bytes into the body, so its end is known
                    to[i] = body.size();
                    bodyOf[i] = bodies.size();
                    i++;
                }
            }
            int[] positions = new int[i - first];
            Arrays.setAll(positions, k -> first + k);
            bodies.add(new Body(body.array(), body.size(), positions));
        }
        return new BulkItems(bulkBytes, List.copyOf(bodies), bodyOf, from, to);
    }

    /** The guessed size of the body starting at item {@code first}: its items' hints until {@code bulkBytes}. */
    private static <T> int capacity(List<T> items, int first, long bulkBytes, ToLongFunction<T> sizeHint) {
        long bytes = 0;
        for (int i = first; i < items.size() && bytes < bulkBytes; i++) {
            bytes += sizeHint.applyAsLong(items.get(i));
        }
        return (int) Math.max(256, Math.min(bytes + 1024, MOST_AHEAD));
    }

    /** How many items. */
    int size() {
        return bodyOf.length;
    }

    /** Every item, in bodies as encoded. */
    List<Body> bodies() {
        return firstCut;
    }

    /**
     * Bodies of only these items (positions in ascending order), their lines copied out of the first cut, each body at
     * most {@code bulk_bytes} but for its last item.
     */
    List<Body> bodies(List<Integer> positions) {
        List<Body> out = new ArrayList<>();
        int k = 0;
        while (k < positions.size()) {
            int first = k;
            long bytes = 0;
            while (k < positions.size() && (k == first || bytes < bulkBytes)) {
                int item = positions.get(k++);
                bytes += to[item] - from[item];
            }
            byte[] body = new byte[(int) bytes];
            int[] items = new int[k - first];
            int at = 0;
            for (int j = first; j < k; j++) {
                int item = positions.get(j);
                int length = to[item] - from[item];
                System.arraycopy(firstCut.get(bodyOf[item]).bytes(), from[item], body, at, length);
                at += length;
                items[j - first] = item;
            }
            out.add(new Body(body, body.length, items));
        }
        return out;
    }
}
