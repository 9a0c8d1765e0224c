package dev.logpipe.archive.store;

import dev.logpipe.archive.format.FileRange;
import dev.logpipe.archive.format.RangeSource;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/**
 * Objects as files under a root directory, a key's segments its subdirectories. A put copies to a temporary file
 * beside the target, forces it, renames it atomically over the target and forces the directory: a crash leaves the old
 * object or the new one, and at most a {@code .tmp} file that {@link #list} never shows.
 */
public final class DirectoryStore implements ObjectStore {
    private static final String TEMP_SUFFIX = ".tmp";

    private final Path root;

    public DirectoryStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    private Path path(String key) {
        return root.resolve(ObjectStore.checkKey(key));
    }

    @Override
    public void put(String key, Path file) throws IOException {
        Path target = path(key);
        Files.createDirectories(target.getParent());
        Path temp = target.resolveSibling(
                target.getFileName() + "." + ProcessHandle.current().pid() + TEMP_SUFFIX);
        Files.copy(file, temp, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    @Override
    public RangeSource open(String key) throws IOException {
        Path p = path(key);
        if (!Files.isRegularFile(p)) {
            throw new NoSuchFileException("no object " + key + " in " + location());
        }
        return new FileRange(p);
    }

    @Override
    public List<String> list(String prefix) throws IOException {
        List<String> keys = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return keys;
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile)
                    .map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .filter(k -> k.startsWith(prefix) && !k.endsWith(TEMP_SUFFIX))
                    .forEach(keys::add);
        }
        Collections.sort(keys);
        return keys;
    }

    @Override
    public boolean delete(String key) throws IOException {
        return Files.deleteIfExists(path(key));
    }

    @Override
    public String location() {
        return root.toUri().toString();
    }

    @Override
    public void close() {}
}
