package dev.logpipe.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads an NDJSON file that another process is still appending to, incrementally: each {@link #poll}
 * parses only the complete lines added since the last one. A trailing line without its newline is left
 * for the next poll (the writer may be in the middle of it). A complete line that is not a JSON object is
 * an {@link AssertionError}: a sink must never leave a torn record behind. Not thread-safe.
 */
public final class NdjsonTail {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path file;
    private final List<JsonNode> records = new ArrayList<>();
    private long position;
    private long pending;

    public NdjsonTail(Path file) {
        this.file = file;
    }

    /** Every record in the file, read once (for files no one writes any more). */
    public static List<JsonNode> readAll(Path file) {
        NdjsonTail t = new NdjsonTail(file);
        t.poll();
        if (t.pendingBytes() > 0) {
            throw new AssertionError(file + " ends with " + t.pendingBytes() + " bytes of an unterminated line");
        }
        return t.records();
    }

    /** Parses the lines completed since the last poll; returns them. */
    public List<JsonNode> poll() {
        List<JsonNode> fresh = new ArrayList<>();
        byte[] bytes;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < position) {
                throw new AssertionError(file + " shrank from " + position + " to " + size + " bytes");
            }
            ByteBuffer buf = ByteBuffer.allocate((int) (size - position));
            while (buf.hasRemaining() && ch.read(buf, position + buf.position()) > 0) {
                // read until the size seen above
            }
            bytes = Arrays.copyOf(buf.array(), buf.position());
        } catch (NoSuchFileException e) {
            return fresh;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != '\n') {
                continue;
            }
            String line = new String(bytes, start, i - start, StandardCharsets.UTF_8);
            try {
                JsonNode n = MAPPER.readTree(line);
                if (n == null || !n.isObject()) {
                    throw new AssertionError(
                            "not a JSON object at byte " + (position + start) + " of " + file + ": " + line);
                }
                fresh.add(n);
            } catch (IOException e) {
                throw new AssertionError(
                        "torn or invalid record at byte " + (position + start) + " of " + file + ": " + line, e);
            }
            start = i + 1;
        }
        position += start;
        pending = bytes.length - start;
        records.addAll(fresh);
        return fresh;
    }

    /** Bytes after the last complete line at the last poll. */
    public long pendingBytes() {
        return pending;
    }

    /** Every record read so far, in file order. */
    public List<JsonNode> records() {
        return List.copyOf(records);
    }

    /** Byte offset just past the last complete line read. */
    public long position() {
        return position;
    }

    /** Shorthand: polls, then returns how many records the file holds so far. */
    public int count() {
        poll();
        return records.size();
    }
}
