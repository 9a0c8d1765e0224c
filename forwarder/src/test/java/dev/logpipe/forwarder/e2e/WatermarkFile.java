package dev.logpipe.forwarder.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads (and, to set up a scenario, writes) the watermark file in the format of docs/watermarks-and-restarts.md. */
final class WatermarkFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One entry: byte offset and inode, the two fields the seed specifies. */
    record Entry(long offset, long inode) {}

    private WatermarkFile() {}

    /** The entries by source path; empty if the file does not exist yet. */
    static Map<String, Entry> read(Path file) {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Map.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            JsonNode files = JSON.readTree(content).required("files");
            Map<String, Entry> out = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : files.properties()) {
                out.put(
                        e.getKey(),
                        new Entry(
                                e.getValue().required("offset").longValue(),
                                e.getValue().required("inode").longValue()));
            }
            return out;
        } catch (IOException | IllegalArgumentException e) {
            throw new AssertionError(
                    "watermark file " + file + " is not in the seed's format: "
                            + new String(content, StandardCharsets.UTF_8),
                    e);
        }
    }

    /** The offset stored for {@code source}, or -1 if there is no entry (yet). */
    static long offset(Path file, Path source) {
        Entry e = read(file).get(source.toString());
        return e == null ? -1 : e.offset();
    }

    /** Writes a watermark file with exactly this JSON text (for original-format and corruption scenarios). */
    static void write(Path file, String json) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
