package dev.logpipe.config.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/** Publishes a small file atomically: temp file, fsync, atomic rename, fsync of the directory. */
public final class AtomicFile {
    /** {@code rw-------}: what a file holding a secret is created with. */
    public static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private AtomicFile() {}

    public static void write(Path target, byte[] content) throws IOException {
        write(target, content, Access.DEFAULT);
    }

    /** Who may read the published file. */
    public enum Access {
        /** What the process's umask gives (usually {@code rw-r--r--}). */
        DEFAULT,
        /**
         * Only the owner ({@code rw-------} on POSIX file systems): the temp file is created with these permissions,
         * so the content is never readable by others, not even between creation and rename.
         */
        OWNER_ONLY
    }

    public static void write(Path target, byte[] content, Access access) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(target.getFileName() + ".tmp");
        try (FileChannel ch = open(tmp, access)) {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot replace " + target + " atomically on this file system", e);
        }
        fsyncDirectory(dir);
    }

    private static FileChannel open(Path tmp, Access access) throws IOException {
        if (access == Access.DEFAULT) {
            return FileChannel.open(
                    tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        }
        // A temp file left by a crash may have other permissions; CREATE would keep them, so start afresh.
        Files.deleteIfExists(tmp);
        Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return posix()
                ? FileChannel.open(tmp, options, ownerOnly())
                : FileChannel.open(tmp, options, new FileAttribute<?>[0]);
    }

    /** The attribute that creates a file {@code rw-------}, for files created elsewhere (logs holding queries). */
    public static FileAttribute<Set<PosixFilePermission>> ownerOnly() {
        return PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    }

    /** Whether this file system has POSIX permissions (not on Windows). */
    public static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /**
     * Makes an existing file owner-only if others may read it (a secret written by an older version); true when its
     * permissions were changed.
     */
    public static boolean restrictToOwner(Path file) throws IOException {
        if (!posix() || !Files.exists(file)) {
            return false;
        }
        Set<PosixFilePermission> p = EnumSet.noneOf(PosixFilePermission.class);
        p.addAll(Files.getPosixFilePermissions(file));
        if (!p.removeIf(x -> !x.name().startsWith("OWNER_"))) {
            return false;
        }
        Files.setPosixFilePermissions(file, p);
        return true;
    }

    public static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            if (!System.getProperty("os.name").startsWith("Windows")) {
                throw e;
            }
        }
    }
}
