package dev.logpipe.query.internal.saved;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.index.shard.TenantDirectory;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Saved searches as files, one per search: {@code <dir>/<tenant directory>/<id>.json} ({@link TenantDirectory}'s
 * encoding, so no tenant id can name another's directory), each published whole ({@link AtomicFile}). One file per
 * search means no read-modify-write: query processes sharing the data directory never lose each other's saves. A
 * file that does not parse is an error naming it (never a search silently left out). Thread-safe.
 */
final class FileSavedSearches implements SavedSearchStore {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUFFIX = ".json";
    private final Path dir;

    FileSavedSearches(Path dir) {
        this.dir = dir;
    }

    @Override
    public List<SavedSearch> list(String tenant) throws IOException {
        Path t = tenantDir(tenant);
        List<SavedSearch> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(t, "*" + SUFFIX)) {
            for (Path f : files) {
                read(f).ifPresent(out::add);
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        return out;
    }

    @Override
    public Optional<SavedSearch> get(String tenant, String id) throws IOException {
        return read(file(tenant, id));
    }

    @Override
    public void put(String tenant, SavedSearch search) throws IOException {
        Path f = file(tenant, search.id());
        Files.createDirectories(f.getParent());
        AtomicFile.write(f, JSON.writeValueAsBytes(search.toJson(JSON.createObjectNode())));
    }

    @Override
    public boolean delete(String tenant, String id) throws IOException {
        return Files.deleteIfExists(file(tenant, id));
    }

    private Optional<SavedSearch> read(Path f) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
            return Optional.empty(); // deleted meanwhile
        }
        try {
            return Optional.of(SavedSearch.fromJson(JSON.readTree(bytes)));
        } catch (IOException | IllegalArgumentException | NullPointerException e) {
            throw new IOException(
                    "saved search file " + f + " is corrupt (" + e.getMessage() + "); move it away or delete it", e);
        }
    }

    private Path tenantDir(String tenant) {
        return dir.resolve(TenantDirectory.encode(tenant));
    }

    private Path file(String tenant, String id) {
        if (!SavedSearches.isId(id)) {
            throw new IllegalArgumentException("not a saved search id: " + id);
        }
        return tenantDir(tenant).resolve(id + SUFFIX);
    }
}
