package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig.Source;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.tail.SourceScanner.Found;
import dev.logpipe.forwarder.internal.watermark.Watermark;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the first scan after a start does with watermark entries that matched no listed file: the file was rotated
 * away (renamed) or deleted while the forwarder was stopped. A renamed file found by identity in the same directory
 * is read to its end from its watermark, and a new file at its old path waits for it; a deleted one is forgotten, and
 * the bytes it still had after its watermark are counted as a gap. Runs once, on the pipeline thread.
 */
final class RestartRecovery {
    private static final Logger log = LoggerFactory.getLogger(RestartRecovery.class);

    /** The open-file registry, as the recovery needs it. */
    interface OpenFiles {
        boolean isOpenPath(String path);

        /** Starts tailing {@code f} at {@code start}; the new tailer is open and has a watermark entry. */
        Tailer register(Found f, FileChannel ch, long start, Tailer predecessor) throws IOException;
    }

    private final WatermarkStore store;
    private final SourceScanner scanner;
    private final FileOpener opener;
    private final ForwarderMetrics metrics;

    RestartRecovery(WatermarkStore store, SourceScanner scanner, FileOpener opener, ForwarderMetrics metrics) {
        this.store = store;
        this.scanner = scanner;
        this.opener = opener;
        this.metrics = metrics;
    }

    /** Settles every entry that no open file holds; {@code vacated} gains the old paths of renamed files. */
    void settleStaleEntries(OpenFiles files, Map<String, Tailer> vacated) {
        for (Map.Entry<String, Watermark> e : new ArrayList<>(store.entries().entrySet())) {
            String p = e.getKey();
            if (files.isOpenPath(p)) {
                continue;
            }
            Watermark w = e.getValue();
            Path path = Path.of(p);
            if (!SourceScanner.directoryExists(path)) {
                continue; // the directory may come back (unmounted volume): keep the entry
            }
            if (isStillThere(path, w)) {
                continue; // same file, just not watched now: keep its entry for when it is again
            }
            if (!resumeRenamed(files, p, w, vacated)) {
                forget(p, w);
            }
        }
    }

    /** Same identity at the same path, fingerprint included: a new file that reused the inode is not the same file. */
    private static boolean isStillThere(Path path, Watermark w) {
        if (!Files.isRegularFile(path)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            return FileIdentity.matches(w, FileKey.of(path), ch);
        } catch (IOException gone) {
            return false;
        }
    }

    private boolean resumeRenamed(OpenFiles files, String oldPath, Watermark w, Map<String, Tailer> vacated) {
        Path renamed = FileIdentity.find(Path.of(oldPath).getParent(), w);
        if (renamed == null) {
            return false;
        }
        FileChannel ch = opener.open(renamed);
        if (ch == null) {
            return false;
        }
        try {
            store.remove(oldPath);
            FileKey key = FileKey.of(renamed);
            Path dir = renamed.getParent();
            Source src = new Source(dir, List.of(), scanner.serviceOf(dir), scanner.parserOf(dir));
            Tailer t = files.register(new Found(renamed, key, ch.size(), 0, src), ch, w.offset(), null);
            t.markUnseen(0);
            vacated.putIfAbsent(oldPath, t);
            log.info(
                    "resuming file from watermark path={} offset={} (rotated from {} while the forwarder "
                            + "was stopped; it is read to its end, then closed)",
                    renamed,
                    w.offset(),
                    oldPath);
            return true;
        } catch (IOException ex) {
            FileOpener.closeQuietly(ch);
            return false;
        }
    }

    private void forget(String p, Watermark w) {
        store.remove(p);
        if (w.size() != Watermark.UNKNOWN && w.size() > w.offset()) {
            long lost = w.size() - w.offset();
            metrics.gapBytes.increment(lost);
            log.warn(
                    "file {} was rotated away and deleted while the forwarder was stopped: at least {} bytes "
                            + "after its watermark were never read (counted in log_forwarder_gap_bytes_total)",
                    p,
                    lost);
        } else {
            log.info("forgetting watermark of vanished file path={} offset={}", p, w.offset());
        }
    }
}
