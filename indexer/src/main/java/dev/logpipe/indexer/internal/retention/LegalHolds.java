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
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The legal holds, persisted in one JSON file (atomic rewrite on every change) and audited: a change is written to
 * the file, then to the audit log, then answered. A corrupt file stops startup naming it. Thread-safe.
 */
public final class LegalHolds {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;
    private final AuditLog audit;
    private final InstantSource clock;
    private final Map<String, LegalHold> holds = new LinkedHashMap<>();

    public LegalHolds(Path file, AuditLog audit, InstantSource clock) throws IOException {
        this.file = file;
        this.audit = audit;
        this.clock = clock;
        load();
    }

    private void load() throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return;
        }
        try {
            for (JsonNode h : JSON.readTree(bytes).path("holds")) {
                LegalHold hold = new LegalHold(
                        h.get("id").asText(),
                        h.get("tenant_id").asText(),
                        Instant.parse(h.get("from").asText()),
                        Instant.parse(h.get("to").asText()),
                        h.get("reason").asText(),
                        h.get("who").asText(),
                        Instant.parse(h.get("created").asText()));
                holds.put(hold.id(), hold);
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("legal holds file " + file + " is corrupt: " + e.getMessage(), e);
        }
    }

    public synchronized List<LegalHold> list() {
        return new ArrayList<>(holds.values());
    }

    public synchronized LegalHold add(String tenant, Instant from, Instant to, String reason, String who)
            throws IOException {
        LegalHold hold = new LegalHold(UUID.randomUUID().toString(), tenant, from, to, reason, who, clock.instant());
        holds.put(hold.id(), hold);
        save();
        audit.append("legal_hold_added", o -> fill(o, hold));
        return hold;
    }

    /** Removes a hold; empty when there is none with that id. */
    public synchronized Optional<LegalHold> remove(String id, String who) throws IOException {
        LegalHold hold = holds.remove(id);
        if (hold == null) {
            return Optional.empty();
        }
        save();
        audit.append("legal_hold_removed", o -> {
            fill(o, hold);
            o.put("removed_by", who);
        });
        return Optional.of(hold);
    }

    public synchronized Optional<LegalHold> holding(String tenant, LocalDate day) {
        return holds.values().stream().filter(h -> h.covers(tenant, day)).findFirst();
    }

    private void save() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode a = root.putArray("holds");
        holds.values().forEach(h -> fill(a.addObject(), h));
        AtomicFile.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    static void fill(ObjectNode o, LegalHold h) {
        o.put("id", h.id());
        o.put("tenant_id", h.tenant());
        o.put("from", h.from().toString());
        o.put("to", h.to().toString());
        o.put("reason", h.reason());
        o.put("who", h.who());
        o.put("created", h.created().toString());
    }
}
