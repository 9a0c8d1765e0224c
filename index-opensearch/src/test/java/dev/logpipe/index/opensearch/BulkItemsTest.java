package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Documents encoded ahead into bodies: every item once, in order, cut at {@code bulk_bytes}, sent again alone. */
class BulkItemsTest {
    private static final long BULK_BYTES = 4096;

    /** Item {@code i}'s lines: its number and {@code size} filler bytes. */
    private static String lines(int[] item) {
        return "{\"index\":{\"_id\":\"" + item[0] + "\"}}\n{\"f\":\"" + "x".repeat(item[1]) + "\"}\n";
    }

    private static void encode(JsonGenerator g, int[] item) throws IOException {
        g.writeRaw(lines(item));
    }

    private static List<int[]> items(int n, long seed) {
        Random random = new Random(seed);
        List<int[]> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            items.add(new int[] {i, random.nextInt(10) == 0 ? 6000 : random.nextInt(300)}); // some past a body alone
        }
        return items;
    }

    private static String text(BulkItems.Body body) {
        return new String(body.bytes(), 0, body.length(), StandardCharsets.UTF_8);
    }

    private static String expected(List<int[]> items, List<Integer> positions) {
        StringBuilder all = new StringBuilder();
        for (int p : positions) {
            all.append(lines(items.get(p)));
        }
        return all.toString();
    }

    @Test
    void everyItemIsInOneBodyInOrderAndABodyPassesBulkBytesOnlyByItsLastItem() throws IOException {
        List<int[]> items = items(2_000, 7);
        // the guess far too small and far too large: the bodies are the same
        for (long hint : new long[] {1, 100_000}) {
            BulkItems encoded = BulkItems.encode(items, BulkItemsTest::encode, BULK_BYTES, i -> hint);
            assertThat(encoded.size()).isEqualTo(2_000);
            StringBuilder all = new StringBuilder();
            List<Integer> positions = new ArrayList<>();
            for (BulkItems.Body body : encoded.bodies()) {
                all.append(text(body));
                for (int p : body.items()) {
                    positions.add(p);
                }
                String lastLines = expected(items, List.of(body.items()[body.items().length - 1]));
                assertThat(body.length() - lastLines.length())
                        .as("a body without its last item is under bulk_bytes")
                        .isLessThan((int) BULK_BYTES);
            }
            List<Integer> every = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                every.add(i);
            }
            assertThat(positions).isEqualTo(every);
            assertThat(all.toString()).isEqualTo(expected(items, every));
            assertThat(encoded.bodies().size()).isGreaterThan(10);
        }
    }

    @Test
    void itemsSentAgainAreCopiedOutAloneInTheirOrderAndCutAtBulkBytes() throws IOException {
        List<int[]> items = items(2_000, 11);
        BulkItems encoded = BulkItems.encode(items, BulkItemsTest::encode, BULK_BYTES, i -> 200);
        List<Integer> again = new ArrayList<>();
        for (int i = 3; i < 2_000; i += 7) {
            again.add(i);
        }
        List<Integer> positions = new ArrayList<>();
        StringBuilder all = new StringBuilder();
        List<BulkItems.Body> bodies = encoded.bodies(again);
        for (BulkItems.Body body : bodies) {
            all.append(text(body));
            for (int p : body.items()) {
                positions.add(p);
            }
            String lastLines = expected(items, List.of(body.items()[body.items().length - 1]));
            assertThat(body.length() - lastLines.length()).isLessThan((int) BULK_BYTES);
        }
        assertThat(positions).isEqualTo(again);
        assertThat(all.toString()).isEqualTo(expected(items, again));
        assertThat(bodies.size()).isGreaterThan(1);
        assertThat(encoded.bodies(List.of())).isEmpty();
    }
}
