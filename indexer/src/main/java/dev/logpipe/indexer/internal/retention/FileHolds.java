package dev.logpipe.indexer.internal.retention;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.config.files.AtomicFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The legal holds of one indexer, in one JSON file under its data directory (atomic rewrite on every change), held in
 * memory. A corrupt file stops startup naming it. Thread-safe.
 */
final class FileHolds implements HoldsStore {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;
    private final Map<String, LegalHold> holds = new LinkedHashMap<>(); // guarded by this

    FileHolds(Path file) throws IOException {
        this.file = file;
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return;
        }
        try {
            for (JsonNode h : JSON.readTree(bytes).path("holds")) {
                LegalHold hold = LegalHold.fromJson(h);
                holds.put(hold.id(), hold);
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("legal holds file " + file + " is corrupt: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized List<LegalHold> all() {
        return new ArrayList<>(holds.values());
    }

    @Override
    public synchronized void add(LegalHold hold) throws IOException {
        holds.put(hold.id(), hold);
        save();
    }

    @Override
    public synchronized Optional<LegalHold> remove(String id) throws IOException {
        LegalHold hold = holds.remove(id);
        if (hold != null) {
            save();
        }
        return Optional.ofNullable(hold);
    }

    private void save() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode a = root.putArray("holds");
        holds.values().forEach(h -> h.toJson(a.addObject()));
        AtomicFile.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }
}
