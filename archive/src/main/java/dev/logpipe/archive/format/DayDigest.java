package dev.logpipe.archive.format;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The checksum of a day's records, the same whether computed over the hot shard or read back from its archive: SHA-256
 * over each record in the read seam's {@code OLDEST_FIRST} order (event time ascending, then record id descending as
 * unsigned UTF-8 bytes), of
 * its event time (8 bytes, big-endian millis), record id and source (each a 4-byte big-endian length then UTF-8).
 * Not thread-safe.
 */
public final class DayDigest {
    private final MessageDigest sha;
    private final ByteBuffer scratch = ByteBuffer.allocate(8);
    private long records;

    public DayDigest() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every Java platform has SHA-256", e);
        }
    }

    public void add(long eventTimeMillis, String recordId, String source) {
        add(eventTimeMillis, recordId, source.getBytes(StandardCharsets.UTF_8));
    }

    /** The same, {@code source} as UTF-8. */
    public void add(long eventTimeMillis, String recordId, byte[] source) {
        scratch.clear();
        sha.update(scratch.putLong(eventTimeMillis).array(), 0, 8);
        bytes(recordId.getBytes(StandardCharsets.UTF_8));
        bytes(source);
        records++;
    }

    private void bytes(byte[] b) {
        scratch.clear();
        sha.update(scratch.putInt(b.length).array(), 0, 4);
        sha.update(b);
    }

    public long records() {
        return records;
    }

    /** The digest so far as lower-case hex (the digest is then reset). */
    public String hex() {
        return HexFormat.of().formatHex(sha.digest());
    }
}
