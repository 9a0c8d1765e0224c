package dev.logpipe.forwarder.internal.tail;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the files the tailers read: a file that cannot be opened is logged once (and again after it could be),
 * and a listed file is opened only if its path still names the file the listing saw. Confined to the pipeline thread.
 */
final class FileOpener {
    private static final Logger log = LoggerFactory.getLogger(FileOpener.class);

    private final SourceScanner scanner;
    private final Set<Path> unreadable = new HashSet<>();

    FileOpener(SourceScanner scanner) {
        this.scanner = scanner;
    }

    /**
     * Opens a file the scan listed, or returns null if its path no longer names the file the listing saw:
     * a rotation between the listing and the open would otherwise tie one file's identity (its watermark,
     * record ids) to another file's content. Checked by the path's identity just after the open.
     */
    FileChannel openListed(SourceScanner.Found f) {
        FileChannel ch = open(f.path());
        if (ch == null) {
            return null;
        }
        try {
            if (FileKey.of(f.path()).equals(f.key())) {
                return ch;
            }
        } catch (IOException e) {
            // vanished just after the open
        }
        closeQuietly(ch);
        scanner.relistNextScan();
        log.debug("path={} changed between the listing and the open; it is looked at again on the next scan", f.path());
        return null;
    }

    /** Opens {@code p} for reading, or null when it does not exist or cannot be read (logged once). */
    FileChannel open(Path p) {
        try {
            FileChannel ch = FileChannel.open(p, StandardOpenOption.READ);
            unreadable.remove(p);
            return ch;
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            if (unreadable.add(p)) {
                log.warn("cannot open {}: {}; it is tried again every scan (logged once)", p, e.toString());
            }
            return null;
        }
    }

    static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to add
        }
    }
}
