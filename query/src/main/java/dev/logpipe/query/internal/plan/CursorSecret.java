package dev.logpipe.query.internal.plan;

import dev.logpipe.config.files.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.LoggerFactory;

/**
 * The key that signs cursors: 32 random bytes, hex, in a file under the data directory, created atomically on first
 * start (a temp file of the starting process's own, fsync, link) and readable by its owner only ({@code rw-------}
 * from creation on), so every restart, and every replica sharing the file, accepts earlier cursors and nobody else
 * can forge them.
 */
public final class CursorSecret {
    private CursorSecret() {}

    /** @throws IOException the file cannot be created, or exists and is not 64 hex digits (named in the message) */
    public static byte[] loadOrCreate(Path file) throws IOException {
        if (!Files.exists(file)) {
            byte[] key = new byte[32];
            new SecureRandom().nextBytes(key);
            Files.createDirectories(file.toAbsolutePath().getParent());
            // a name of its own: replicas starting at once must not write (or delete) each other's temp file
            byte[] nonce = new byte[8];
            new SecureRandom().nextBytes(nonce);
            Path tmp = file.resolveSibling(
                    file.getFileName() + ".new-" + HexFormat.of().formatHex(nonce));
            AtomicFile.write(
                    tmp,
                    HexFormat.of().formatHex(key).getBytes(StandardCharsets.US_ASCII),
                    AtomicFile.Access.OWNER_ONLY);
            try {
                Files.createLink(file, tmp); // fails if another process created it meanwhile: then we read theirs
            } catch (FileAlreadyExistsException e) {
                // another replica won the race
            } catch (UnsupportedOperationException | IOException e) {
                // no hard links here: a rename cannot refuse an existing file, so replicas starting at this very
                // moment could each keep their own key; say so, and how to avoid it
                LoggerFactory.getLogger(CursorSecret.class)
                        .warn(
                                "cannot link the new cursor secret into place on this file system ({}); renaming it. "
                                        + "With several query replicas sharing {}, create it before starting them "
                                        + "(64 hex digits, mode 600)",
                                e.toString(),
                                file);
                if (!Files.exists(file)) {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
                }
            } finally {
                Files.deleteIfExists(tmp);
                AtomicFile.fsyncDirectory(file.toAbsolutePath().getParent());
            }
        } else if (AtomicFile.restrictToOwner(file)) {
            LoggerFactory.getLogger(CursorSecret.class)
                    .warn("cursor secret {} was readable by others (made by an older logpipe); now rw-------", file);
        }
        String text = Files.readString(file).strip();
        if (!text.matches("[0-9a-f]{64}")) {
            throw new IOException(
                    "cursor secret " + file + " is corrupt: it must hold 64 hex digits (delete it to make "
                            + "a new one; cursors handed out before stop working)");
        }
        return HexFormat.of().parseHex(text);
    }
}
