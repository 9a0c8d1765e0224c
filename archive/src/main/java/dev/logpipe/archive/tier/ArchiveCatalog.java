package dev.logpipe.archive.tier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.config.files.AtomicFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which days are archived, in one small JSON file ({@code catalog.json}, docs/archive.md#catalog) replaced atomically
 * on every change (temp, fsync, rename, directory fsync): a crash leaves the catalog before or after a change, never
 * between. Reads are served from memory. Thread-safe.
 */
public final class ArchiveCatalog {
    public static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger log = LoggerFactory.getLogger(ArchiveCatalog.class);

    private final Path file;
    private final TreeMap<String, CatalogEntry> entries = new TreeMap<>();
    private final TreeMap<String, KeptHot> keptHot = new TreeMap<>();
    private Stamp stamp = Stamp.ABSENT;

    private ArchiveCatalog(Path file) {
        this.file = file;
    }

    /**
     * Loads the catalog at {@code file} (none yet: empty).
     *
     * @throws IOException the file is unreadable or not a catalog; the message names it
     */
    public static ArchiveCatalog load(Path file) throws IOException {
        ArchiveCatalog c = new ArchiveCatalog(file);
        c.stamp = Stamp.of(file);
        Contents contents = read(file);
        c.entries.putAll(contents.entries());
        c.keptHot.putAll(contents.keptHot());
        return c;
    }

    /**
     * For a process that reads a catalog another process writes (a query service beside the indexer): when the file
     * was replaced since it was last read, reads it again. A file that became unreadable or corrupt keeps the entries
     * last read and is logged, naming the file; true when the entries changed.
     */
    public synchronized boolean reloadIfChanged() {
        Stamp now;
        try {
            now = Stamp.of(file);
        } catch (IOException e) {
            log.warn(
                    "archive catalog {} cannot be read ({}); the archived days last read are still searched",
                    file,
                    e.toString());
            return false;
        }
        if (now.equals(stamp)) {
            return false;
        }
        try {
            Contents fresh = read(file);
            entries.clear();
            entries.putAll(fresh.entries());
            keptHot.clear();
            keptHot.putAll(fresh.keptHot());
            stamp = now;
            return true;
        } catch (IOException e) {
            log.error("{}; the archived days last read are still searched", e.getMessage());
            stamp = now; // logged once per version of the file
            return false;
        }
    }

    /** What identifies one version of the file: an atomic replace gives it a new file key and time. */
    private record Stamp(Object fileKey, long modifiedMillis, long size) {
        static final Stamp ABSENT = new Stamp(null, -1, -1);

        static Stamp of(Path file) throws IOException {
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                return new Stamp(a.fileKey(), a.lastModifiedTime().toMillis(), a.size());
            } catch (NoSuchFileException e) {
                return ABSENT;
            }
        }
    }

    private record Contents(TreeMap<String, CatalogEntry> entries, TreeMap<String, KeptHot> keptHot) {}

    private static Contents read(Path file) throws IOException {
        TreeMap<String, CatalogEntry> out = new TreeMap<>();
        TreeMap<String, KeptHot> kept = new TreeMap<>();
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new Contents(out, kept);
        }
        try {
            JsonNode root = JSON.readTree(bytes);
            if (root == null || root.path("format").asInt() != FORMAT) {
                throw new IOException("not an archive catalog of format " + FORMAT);
            }
            for (JsonNode e : root.path("days")) {
                JsonNode hot = e.path("covered_hot");
                CatalogEntry entry = new CatalogEntry(
                        e.path("tenant_id").asText(),
                        LocalDate.parse(e.path("day").asText()),
                        e.path("generation").asInt(),
                        e.path("key").asText(),
                        e.path("records").asLong(),
                        e.path("bytes").asLong(),
                        e.path("source_bytes").asLong(),
                        e.path("digest").asText(),
                        e.path("min_event_time_ms").asLong(),
                        e.path("max_event_time_ms").asLong(),
                        Instant.parse(e.path("archived_at").asText()),
                        hot.isObject()
                                ? new CatalogEntry.HotState(
                                        hot.path("docs").asLong(),
                                        hot.path("updated").isNull()
                                                ? null
                                                : Instant.parse(
                                                        hot.path("updated").asText()))
                                : null);
                out.put(id(entry.tenant(), entry.day()), entry);
            }
            for (JsonNode k : root.path("kept_hot")) {
                KeptHot h = new KeptHot(
                        k.path("tenant_id").asText(),
                        LocalDate.parse(k.path("day").asText()),
                        Instant.parse(k.path("until").asText()));
                kept.put(id(h.tenant(), h.day()), h);
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("archive catalog " + file + " is corrupt: " + e.getMessage(), e);
        }
        return new Contents(out, kept);
    }

    private static String id(String tenant, LocalDate day) {
        return tenant + "\u0000" + day;
    }

    public synchronized Optional<CatalogEntry> entry(String tenant, LocalDate day) {
        return Optional.ofNullable(entries.get(id(tenant, day)));
    }

    /** A tenant's archived days, oldest first. */
    public synchronized List<CatalogEntry> entries(String tenant) {
        List<CatalogEntry> out = new ArrayList<>();
        entries.subMap(tenant + "\u0000", tenant + "\u0001").values().forEach(out::add);
        return out;
    }

    public synchronized List<CatalogEntry> all() {
        return new ArrayList<>(entries.values());
    }

    /** Records (or replaces) a day's entry; durable when this returns. */
    public synchronized void put(CatalogEntry entry) throws IOException {
        CatalogEntry previous = entries.put(id(entry.tenant(), entry.day()), entry);
        try {
            save();
        } catch (IOException | RuntimeException e) {
            restore(entry, previous);
            throw e;
        }
    }

    /** Removes a day's entry; durable when this returns; false when there was none. */
    public synchronized boolean remove(String tenant, LocalDate day) throws IOException {
        CatalogEntry previous = entries.remove(id(tenant, day));
        if (previous == null) {
            return false;
        }
        try {
            save();
        } catch (IOException | RuntimeException e) {
            entries.put(id(tenant, day), previous);
            throw e;
        }
        return true;
    }

    /** The day restored into the hot tier and kept there (not archived again) until its {@code until}, if any. */
    public synchronized Optional<KeptHot> keptHot(String tenant, LocalDate day) {
        return Optional.ofNullable(keptHot.get(id(tenant, day)));
    }

    /** Every day kept hot, by tenant and day. */
    public synchronized List<KeptHot> keptHot() {
        return new ArrayList<>(keptHot.values());
    }

    /** Keeps a day hot until {@code kept.until()} (replacing an earlier one); durable when this returns. */
    public synchronized void keepHot(KeptHot kept) throws IOException {
        KeptHot previous = keptHot.put(id(kept.tenant(), kept.day()), kept);
        try {
            save();
        } catch (IOException | RuntimeException e) {
            if (previous == null) {
                keptHot.remove(id(kept.tenant(), kept.day()));
            } else {
                keptHot.put(id(kept.tenant(), kept.day()), previous);
            }
            throw e;
        }
    }

    /** Lets a kept day be archived again; durable when this returns; false when it was not kept. */
    public synchronized boolean unkeep(String tenant, LocalDate day) throws IOException {
        KeptHot previous = keptHot.remove(id(tenant, day));
        if (previous == null) {
            return false;
        }
        try {
            save();
        } catch (IOException | RuntimeException e) {
            keptHot.put(id(tenant, day), previous);
            throw e;
        }
        return true;
    }

    /** Forgets kept days whose time is over and whose restore is not under way; returns how many. */
    public synchronized int dropExpiredKeeps(Instant now) throws IOException {
        List<String> expired = new ArrayList<>();
        keptHot.forEach((id, k) -> {
            if (!k.keeps(now) && !entries.containsKey(id)) {
                expired.add(id);
            }
        });
        if (expired.isEmpty()) {
            return 0;
        }
        TreeMap<String, KeptHot> before = new TreeMap<>(keptHot);
        expired.forEach(keptHot::remove);
        try {
            save();
        } catch (IOException | RuntimeException e) {
            keptHot.clear();
            keptHot.putAll(before);
            throw e;
        }
        return expired.size();
    }

    private void restore(CatalogEntry entry, CatalogEntry previous) {
        if (previous == null) {
            entries.remove(id(entry.tenant(), entry.day()));
        } else {
            entries.put(id(entry.tenant(), entry.day()), previous);
        }
    }

    private void save() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        ArrayNode days = root.putArray("days");
        for (CatalogEntry e : entries.values()) {
            ObjectNode o = days.addObject();
            o.put("tenant_id", e.tenant());
            o.put("day", e.day().toString());
            o.put("generation", e.generation());
            o.put("key", e.key());
            o.put("records", e.records());
            o.put("bytes", e.bytes());
            o.put("source_bytes", e.sourceBytes());
            o.put("digest", e.digest());
            o.put("min_event_time_ms", e.minEventTimeMillis());
            o.put("max_event_time_ms", e.maxEventTimeMillis());
            o.put("archived_at", e.archivedAt().toString());
            if (e.coveredHot() != null) {
                ObjectNode h = o.putObject("covered_hot");
                h.put("docs", e.coveredHot().docs());
                h.put(
                        "updated",
                        e.coveredHot().updated() == null
                                ? null
                                : e.coveredHot().updated().toString());
            }
        }
        ArrayNode kept = root.putArray("kept_hot");
        for (KeptHot k : keptHot.values()) {
            kept.addObject()
                    .put("tenant_id", k.tenant())
                    .put("day", k.day().toString())
                    .put("until", k.until().toString());
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        AtomicFile.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }
}
