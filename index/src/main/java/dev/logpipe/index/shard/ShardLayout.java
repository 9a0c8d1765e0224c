package dev.logpipe.index.shard;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Where shards live on disk: {@code DATA/<kind dir>/<tenant dir>/<yyyy-mm-dd>/} holding the Lucene index in
 * {@code lucene/} and the metadata in {@code shard.json} beside it (readable without opening the index).
 * Directories that are not a valid tenant or day name are ignored by {@link #list}, never guessed at.
 */
public final class ShardLayout {
    public static final String LUCENE_DIR = "lucene";
    public static final String METADATA_FILE = "shard.json";

    private final Path dataDir;

    public ShardLayout(Path dataDir) {
        this.dataDir = dataDir.toAbsolutePath().normalize();
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path shardDir(ShardId id) {
        return dataDir.resolve(id.kind().directory())
                .resolve(TenantDirectory.encode(id.tenant()))
                .resolve(id.day().toString());
    }

    public Path luceneDir(ShardId id) {
        return shardDir(id).resolve(LUCENE_DIR);
    }

    public Path metadataFile(ShardId id) {
        return shardDir(id).resolve(METADATA_FILE);
    }

    /** Every shard of a kind on disk, sorted (tenant, day). */
    public List<ShardId> list(ShardKind kind) throws IOException {
        Path root = dataDir.resolve(kind.directory());
        List<ShardId> out = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> tenants = Files.newDirectoryStream(root, Files::isDirectory)) {
            for (Path t : tenants) {
                Optional<String> tenant = TenantDirectory.decode(t.getFileName().toString());
                if (tenant.isEmpty()) {
                    continue;
                }
                try (DirectoryStream<Path> days = Files.newDirectoryStream(t, Files::isDirectory)) {
                    for (Path d : days) {
                        day(d.getFileName().toString()).ifPresent(day -> out.add(new ShardId(kind, tenant.get(), day)));
                    }
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    /** The shards of one tenant and kind, sorted by day. */
    public List<ShardId> list(ShardKind kind, String tenant) throws IOException {
        Path root = dataDir.resolve(kind.directory()).resolve(TenantDirectory.encode(tenant));
        List<ShardId> out = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> days = Files.newDirectoryStream(root, Files::isDirectory)) {
            for (Path d : days) {
                day(d.getFileName().toString()).ifPresent(day -> out.add(new ShardId(kind, tenant, day)));
            }
        }
        Collections.sort(out);
        return out;
    }

    private static Optional<LocalDate> day(String name) {
        if (name.length() != 10) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDate.parse(name));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
