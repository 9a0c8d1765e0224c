package dev.logpipe.index.store.read;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A record_id as its UTF-8 bytes, ordered as unsigned bytes: the order of the merge key's second part, which every
 * engine's keyword sort uses (and {@link String#compareTo} does not, past the BMP). Immutable.
 */
public final class IdBytes implements Comparable<IdBytes> {
    public static final IdBytes EMPTY = new IdBytes(new byte[0]);

    private final byte[] utf8;

    private IdBytes(byte[] utf8) {
        this.utf8 = utf8;
    }

    public static IdBytes of(String id) {
        return new IdBytes(id.getBytes(StandardCharsets.UTF_8));
    }

    /** A copy of {@code length} bytes of UTF-8 from {@code bytes} at {@code offset}. */
    public static IdBytes copyOf(byte[] bytes, int offset, int length) {
        return new IdBytes(Arrays.copyOfRange(bytes, offset, offset + length));
    }

    public int length() {
        return utf8.length;
    }

    public byte byteAt(int index) {
        return utf8[index];
    }

    /** The id as text. */
    public String text() {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    @Override
    public int compareTo(IdBytes other) {
        return Arrays.compareUnsigned(utf8, other.utf8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdBytes other && Arrays.equals(utf8, other.utf8);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(utf8);
    }

    @Override
    public String toString() {
        return text();
    }
}
