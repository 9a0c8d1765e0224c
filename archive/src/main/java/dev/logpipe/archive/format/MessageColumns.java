package dev.logpipe.archive.format;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Format 2's encoding of a block's rebuilt messages (docs/archive-format.md#messages). Each message is split at every
 * space into words, and each word into a <em>shape</em> and its numbers: every run of digits that prints back the
 * same ({@code 0}, or up to 18 digits not starting with {@code 0}) and does not touch a letter (hex ids and
 * {@code 3ms} stay text) becomes a {@link #NUMBER} mark in the shape and a
 * varint in the {@code NUMBERS} column ({@code took_ms=1234} is {@code took_ms=\u0001} and 1234). A shape seen at
 * least twice in the block is written as its number in the block's shape list, any other as a literal. Log lines
 * repeat their words and shapes far more than their values: a stream of small shape numbers compresses to a few bits
 * a word, where zstd alone pays a match per word and digits as text. Not thread-safe.
 */
final class MessageColumns {
    /** Stands for one number in a shape; a word that holds it is kept whole as a literal. */
    static final char NUMBER = '\u0001';

    private static final int WHOLE = 0;
    private static final int SHAPED = 1;
    private static final int LISTED = 2;

    private MessageColumns() {}

    /** A word as a shape and the numbers its marks stand for (none for a word kept whole). */
    private record Word(String shape, long[] numbers, boolean whole) {}

    /** Writes {@code messages} (a block's, in row order) into the {@code MESSAGE}, {@code LITERALS}, {@code NUMBERS}. */
    static void write(List<String> messages, Bytes words, Bytes literals, Bytes numbers) {
        Map<String, Integer> counts = new HashMap<>();
        List<List<Word>> split = new ArrayList<>(messages.size());
        for (String m : messages) {
            List<Word> ws = new ArrayList<>();
            for (String w : split(m)) {
                Word word = shape(w);
                ws.add(word);
                if (!word.whole()) {
                    counts.merge(word.shape(), 1, Integer::sum);
                }
            }
            split.add(ws);
        }
        List<Map.Entry<String, Integer>> repeated = new ArrayList<>();
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (e.getValue() > 1) {
                repeated.add(e);
            }
        }
        // the most frequent shapes get the smallest numbers (one varint byte for the first 126)
        repeated.sort((a, b) -> a.getValue().equals(b.getValue())
                ? a.getKey().compareTo(b.getKey())
                : Integer.compare(b.getValue(), a.getValue()));
        Map<String, Integer> ids = new HashMap<>();
        words.varint(repeated.size());
        for (Map.Entry<String, Integer> e : repeated) {
            ids.put(e.getKey(), LISTED + ids.size());
            words.string(e.getKey());
        }
        for (List<Word> ws : split) {
            words.varint(ws.size());
            for (Word w : ws) {
                Integer id = w.whole() ? null : ids.get(w.shape());
                if (w.whole()) {
                    words.varint(WHOLE);
                    literals.string(w.shape());
                } else if (id == null) {
                    words.varint(SHAPED);
                    literals.string(w.shape());
                } else {
                    words.varint(id);
                }
                for (long n : w.numbers()) {
                    numbers.varint(n);
                }
            }
        }
    }

    static List<String> split(String message) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int at = message.indexOf(' '); at >= 0; at = message.indexOf(' ', from)) {
            out.add(message.substring(from, at));
            from = at + 1;
        }
        out.add(message.substring(from));
        return out;
    }

    private static final long[] NONE = new long[0];

    private static Word shape(String w) {
        if (w.indexOf(NUMBER) >= 0) {
            return new Word(w, NONE, true);
        }
        StringBuilder shape = null;
        long[] numbers = NONE;
        int copied = 0;
        for (int i = 0; i < w.length(); ) {
            if (!digit(w.charAt(i))) {
                i++;
                continue;
            }
            int end = i;
            while (end < w.length() && digit(w.charAt(end))) {
                end++;
            }
            int len = end - i;
            boolean amidLetters = (i > 0 && letter(w.charAt(i - 1))) || (end < w.length() && letter(w.charAt(end)));
            if ((len == 1 || w.charAt(i) != '0') && len <= 18 && !amidLetters) {
                if (shape == null) {
                    shape = new StringBuilder(w.length());
                }
                shape.append(w, copied, i).append(NUMBER);
                numbers = java.util.Arrays.copyOf(numbers, numbers.length + 1);
                numbers[numbers.length - 1] = Long.parseLong(w, i, end, 10);
                copied = end;
            }
            i = end;
        }
        if (shape == null) {
            return new Word(w, numbers, false);
        }
        return new Word(shape.append(w, copied, w.length()).toString(), numbers, false);
    }

    private static boolean letter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    /** Reads the messages {@link #write} wrote, one per {@link #next} call, in row order. */
    static final class Reader {
        private final Bytes.Reader words;
        private final Bytes.Reader literals;
        private final Bytes.Reader numbers;
        private final String[] list;
        /** For each listed shape, where its numbers go (indexes of {@link #NUMBER}); empty: none. */
        private final int[][] holes;
        /** One message at a time is made here (its capacity kept from message to message). */
        private final StringBuilder m = new StringBuilder(256);

        /** @throws IllegalArgumentException the columns are damaged */
        Reader(Bytes.Reader words, Bytes.Reader literals, Bytes.Reader numbers) {
            this.words = words;
            this.literals = literals;
            this.numbers = numbers;
            long n = words.varint();
            if (n < 0 || n > words.remaining()) {
                throw new IllegalArgumentException("a shape list of " + n + " in a column of fewer bytes");
            }
            list = new String[(int) n];
            holes = new int[list.length][];
            for (int i = 0; i < list.length; i++) {
                list[i] = words.string();
                if (list[i] == null) {
                    throw new IllegalArgumentException("shape " + i + " of the list is null");
                }
                holes[i] = holes(list[i]);
            }
        }

        private static int[] holes(String shape) {
            int count = 0;
            for (int c = 0; c < shape.length(); c++) {
                count += shape.charAt(c) == NUMBER ? 1 : 0;
            }
            int[] at = new int[count];
            for (int c = 0, k = 0; k < count; c++) {
                if (shape.charAt(c) == NUMBER) {
                    at[k++] = c;
                }
            }
            return at;
        }

        /** @throws IllegalArgumentException the columns are damaged */
        String next() {
            long n = words.varint();
            if (n < 1 || n > words.remaining() + 1) {
                throw new IllegalArgumentException("a message of " + n + " words");
            }
            m.setLength(0);
            for (long i = 0; i < n; i++) {
                if (i > 0) {
                    m.append(' ');
                }
                long id = words.varint();
                if (id == WHOLE) {
                    m.append(notNull(literals.string()));
                } else if (id == SHAPED) {
                    String shape = notNull(literals.string());
                    fill(shape, holes(shape));
                } else if (id - LISTED < list.length) {
                    fill(list[(int) (id - LISTED)], holes[(int) (id - LISTED)]);
                } else {
                    throw new IllegalArgumentException("shape " + id + " of a list of " + list.length);
                }
            }
            return m.toString();
        }

        /** Appends {@code shape} with the next numbers in its holes. */
        private void fill(String shape, int[] holes) {
            int from = 0;
            for (int hole : holes) {
                m.append(shape, from, hole).append(numbers.varint());
                from = hole + 1;
            }
            m.append(shape, from, shape.length());
        }

        private static String notNull(String s) {
            if (s == null) {
                throw new IllegalArgumentException("a null word");
            }
            return s;
        }
    }
}
