package dev.logpipe.query.internal.rules;

import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.index.shard.TenantDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stored rule groups as files: {@code <dir>/<tenant directory>/<group name>.yaml}, both names in {@link
 * TenantDirectory}'s encoding (injective, no traversal), each published whole ({@link AtomicFile}). A name in the
 * directory that is not such an encoding is an error naming it, never a group silently left out. Thread-safe.
 */
final class FileRuleStore implements RuleStore {
    private static final String SUFFIX = ".yaml";
    private final Path dir;

    FileRuleStore(Path dir) {
        this.dir = dir;
    }

    @Override
    public List<StoredGroup> all() throws IOException {
        List<StoredGroup> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> tenants = Files.newDirectoryStream(dir)) {
            for (Path t : tenants) {
                String tenant = decode(t, t.getFileName().toString());
                try (DirectoryStream<Path> groups = Files.newDirectoryStream(t, "*" + SUFFIX)) {
                    for (Path g : groups) {
                        String file = g.getFileName().toString();
                        String name = decode(g, file.substring(0, file.length() - SUFFIX.length()));
                        try {
                            out.add(new StoredGroup(tenant, name, Files.readString(g, StandardCharsets.UTF_8)));
                        } catch (NoSuchFileException e) {
                            // deleted meanwhile
                        }
                    }
                }
            }
        }
        return out;
    }

    @Override
    public void put(StoredGroup group) throws IOException {
        Path f = file(group.tenant(), group.name());
        Files.createDirectories(f.getParent());
        AtomicFile.write(f, group.yaml().getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean delete(String tenant, String name) throws IOException {
        return Files.deleteIfExists(file(tenant, name));
    }

    private Path file(String tenant, String name) {
        return dir.resolve(TenantDirectory.encode(tenant)).resolve(TenantDirectory.encode(name) + SUFFIX);
    }

    private static String decode(Path where, String encoded) throws IOException {
        Optional<String> d = TenantDirectory.decode(encoded);
        if (d.isEmpty()) {
            throw new IOException("rule store: " + where + " is not a name logpipe wrote; move it away");
        }
        return d.get();
    }
}
