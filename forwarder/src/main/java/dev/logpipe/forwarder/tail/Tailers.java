package dev.logpipe.forwarder.tail;

import dev.logpipe.forwarder.config.ForwarderConfig.Source;
import dev.logpipe.forwarder.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.tail.SourceScanner.Found;
import dev.logpipe.forwarder.watermark.PublishedJournal;
import dev.logpipe.forwarder.watermark.Watermark;
import dev.logpipe.forwarder.watermark.WatermarkStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The set of open files and how it follows the file system: new files, renames (rotation), deletions,
 * and where each file starts reading (its watermark when the identity matches, else offset 0). Files are
 * keyed by device and inode, so a rename never re-reads a file; the watermark file stays keyed by path
 * as seed 000 specifies. Confined to the pipeline thread.
 */
final class Tailers {
    private static final Logger log = LoggerFactory.getLogger(Tailers.class);

    private final SourceScanner scanner;
    private final WatermarkStore store;
    private final PublishedJournal journal;
    private final ForwarderMetrics metrics;
    private final FileParsers parsers;
    private final int maxLineBytes;
    private final String host;
    private final long rotateWaitNanos;
    /**
     * Paths a file was renamed or moved away from and no file has taken since, with the file that left (the
     * successor waits for it, and its arrival is a rotation). Bounded: the oldest are forgotten first.
     */
    private final Map<String, Tailer> vacatedEarlier = bounded();
    /** Vacated paths whose file has been read and closed: no one to wait for, but a new file there is a rotation. */
    private final Map<String, Boolean> leftEarlier = bounded();

    private static <V> Map<String, V> bounded() {
        return new java.util.LinkedHashMap<>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > 1024;
            }
        };
    }
    private final Map<FileKey, Tailer> open = new LinkedHashMap<>();
    private boolean firstScan = true;
    private boolean journalSettled;
    private Set<String> reportedPaths = Set.of();
    private final Set<Path> unreadable = new HashSet<>();

    Tailers(SourceScanner scanner, WatermarkStore store, PublishedJournal journal, ForwarderMetrics metrics,
            FileParsers parsers, int maxLineBytes, String host, long rotateWaitNanos) {
        this.scanner = scanner;
        this.store = store;
        this.journal = journal;
        this.metrics = metrics;
        this.parsers = parsers;
        this.maxLineBytes = maxLineBytes;
        this.host = host;
        this.rotateWaitNanos = rotateWaitNanos;
    }

    /** Open files, oldest first: rotated files come before their successors. */
    List<Tailer> ordered() {
        return new ArrayList<>(open.values());
    }

    int size() {
        return open.size();
    }

    /** Brings the open set in line with what the sources match now. */
    void scan(long now) {
        List<Found> found = scanner.scan(now);
        Set<FileKey> seen = new HashSet<>();
        // Paths a file left in an earlier scan count too: the new file often appears a scan after the rename.
        Map<String, Tailer> vacated = new HashMap<>(vacatedEarlier);
        for (Found f : found) {
            Tailer t = open.get(f.key());
            if (t == null) {
                continue;
            }
            seen.add(f.key());
            t.markSeen();
            String p = f.path().toString();
            if (!t.path().equals(p)) {
                String old = t.path();
                vacated.put(old, t);
                moveEntry(t, p);
                log.info("file renamed path={} new_path={} offset={}", old, p, t.committed());
            }
        }
        for (Tailer t : open.values()) {
            if (!seen.contains(t.key()) && !t.isUnseen()) {
                t.markUnseen(now);
                vacated.put(t.path(), t);
                locateOutsidePatterns(t);
            }
        }
        List<Found> fresh = new ArrayList<>();
        for (Found f : found) {
            if (!open.containsKey(f.key())) {
                fresh.add(f);
            }
        }
        // Files that match a watermark by identity first, so that a rotated file claims its entry before
        // the new file at its old path starts from the beginning.
        List<Found> unmatched = new ArrayList<>();
        for (Found f : fresh) {
            if (!openIfKnown(f, vacated)) {
                unmatched.add(f);
            }
        }
        // Before a new file takes over a path: an entry for that path whose file was renamed out of the
        // patterns while we were stopped must claim its renamed file first, or its unread tail is lost.
        if (firstScan) {
            firstScan = false;
            settleStaleEntries(vacated);
        }
        for (Found f : unmatched) {
            openFromBeginning(f, vacated);
        }
        for (Map.Entry<String, Tailer> v : vacated.entrySet()) {
            if (isOpenPath(v.getKey())) {
                vacatedEarlier.remove(v.getKey()); // a successor took the path
                leftEarlier.remove(v.getKey());
            } else if (v.getValue().isClosed()) {
                vacatedEarlier.remove(v.getKey()); // nothing to wait for; a successor is still a rotation
                leftEarlier.put(v.getKey(), Boolean.TRUE);
            } else {
                vacatedEarlier.put(v.getKey(), v.getValue());
            }
        }
        if (!journalSettled) {
            journalSettled = true;
            Set<PublishedJournal.Key> keys = new HashSet<>();
            for (Tailer t : open.values()) {
                keys.add(t.journalKey());
            }
            journal.retainOnly(keys);
        }
    }

    /** Publishes the per-file lag series for the files open now, if a file was opened, renamed or closed. */
    void reportLag() {
        Set<String> paths = new HashSet<>();
        for (Tailer t : open.values()) {
            paths.add(t.path() + "@" + t.key().device() + ":" + t.key().inode());
        }
        if (paths.equals(reportedPaths)) {
            return; // the gauges read live values; only the set of series needs refreshing
        }
        reportedPaths = paths;
        Map<String, Supplier<Number>> lag = new LinkedHashMap<>();
        for (Tailer t : open.values()) {
            lag.put(t.path(), t::lagBytes);
        }
        metrics.lag(lag);
    }

    /** Files that left the sources at least rotate_wait ago and were read to their end: ready to close. */
    /** Whether {@code t} left the sources at least rotate_wait ago and was read to its end (nothing more will come). */
    boolean ended(Tailer t, long now) {
        return t.isUnseen() && t.reachedEof() && now - t.unseenSinceNanos() >= rotateWaitNanos;
    }

    List<Tailer> finished(long now) {
        List<Tailer> done = new ArrayList<>();
        for (Tailer t : open.values()) {
            if (t.isUnseen() && t.reachedEof() && !t.hasPendingRecord() && now - t.unseenSinceNanos() >= rotateWaitNanos) {
                done.add(t);
            }
        }
        return done;
    }

    void close(Tailer t) {
        open.remove(t.key());
        Watermark w = store.get(t.path());
        if (w != null && w.inode() == t.key().inode()) {
            store.remove(t.path());
        }
        journal.release(t.journalKey());
        try {
            t.close();
        } catch (IOException e) {
            log.warn("closing {} failed: {}", t.path(), e.toString());
        }
        metrics.fileClosed();
        log.info("stopped tailing file path={} offset={} (it left the watched sources and was read to its end)",
                t.path(), t.committed());
    }

    void closeAll() {
        for (Tailer t : new ArrayList<>(open.values())) {
            open.remove(t.key());
            // The journal entry stays: if the final watermark write failed, the next run still counts replays.
            try {
                t.close();
            } catch (IOException e) {
                log.warn("closing {} failed: {}", t.path(), e.toString());
            }
        }
    }

    private boolean openIfKnown(Found f, Map<String, Tailer> vacated) {
        FileChannel ch = openFound(f);
        if (ch == null) {
            return true; // vanished or replaced since the listing; the next scan sees the truth
        }
        try {
            String p = f.path().toString();
            String matched = null;
            Watermark w = store.get(p);
            if (w != null && identityMatches(w, f.key(), ch)) {
                matched = p;
            } else {
                for (Map.Entry<String, Watermark> e : store.entries().entrySet()) {
                    if (!e.getKey().equals(p) && !isOpenPath(e.getKey())
                            && identityMatches(e.getValue(), f.key(), ch)) {
                        matched = e.getKey();
                        break;
                    }
                }
            }
            if (matched == null) {
                ch.close();
                return false;
            }
            Watermark mw = store.get(matched);
            long start = mw.offset();
            if (ch.size() < start) {
                metrics.truncations.increment();
                log.warn("file is shorter than its watermark (truncated while the forwarder was stopped?) path={} "
                        + "size={} watermark={}; reading it from the beginning", p, ch.size(), start);
                start = 0;
            } else if (!matched.equals(p)) {
                log.info("resuming file from watermark path={} offset={} (renamed from {} while the forwarder was "
                        + "stopped)", p, start, matched);
            } else {
                log.info("resuming file from watermark path={} offset={}", p, start);
            }
            if (!matched.equals(p)) {
                store.remove(matched);
            }
            register(f, ch, start, vacated.get(p));
            if (!matched.equals(p)) {
                vacated.putIfAbsent(matched, open.get(f.key()));
            }
            return true;
        } catch (IOException e) {
            closeQuietly(ch);
            log.warn("cannot read {}: {}; it is tried again on the next scan", f.path(), e.toString());
            return true;
        }
    }

    private void openFromBeginning(Found f, Map<String, Tailer> vacated) {
        FileChannel ch = openFound(f);
        if (ch == null) {
            return;
        }
        try {
            Tailer predecessor = vacated.get(f.path().toString());
            Watermark stale = store.get(f.path().toString());
            boolean pathWasLeft = leftEarlier.remove(f.path().toString()) != null;
            if (predecessor != null || stale != null || pathWasLeft) {
                metrics.rotations.increment();
            }
            log.info("tailing file from beginning path={}{}", f.path(),
                    stale != null ? " (new identity: inode " + f.key().inode() + ", was " + stale.inode() + ")" : "");
            register(f, ch, 0, predecessor);
        } catch (IOException e) {
            closeQuietly(ch);
            log.warn("cannot read {}: {}; it is tried again on the next scan", f.path(), e.toString());
        }
    }

    private void register(Found f, FileChannel ch, long start, Tailer predecessor) throws IOException {
        Fingerprint fp = Fingerprint.of(ch);
        PublishedJournal.Key jk = new PublishedJournal.Key(f.key().device(), f.key().inode(), fp.hash());
        long replayUntil = fp.complete() ? journal.previouslyPublished(jk) : -1;
        var k8s = parsers.kubernetes(f.path().toString());
        String service = parsers.service(f.source().service(), k8s);
        Tailer t = new Tailer(f.path().toString(), f.key(), ch, fp, start, replayUntil > start ? replayUntil : -1,
                parsers.newParser(), parsers.newContainerLines(), k8s, maxLineBytes, host, service);
        if (predecessor != null) {
            t.follows(predecessor);
        }
        open.put(f.key(), t);
        store.put(t.path(), t.watermark());
        metrics.fileOpened();
    }

    private void moveEntry(Tailer t, String newPath) {
        Watermark w = store.get(t.path());
        if (w != null && w.inode() == t.key().inode()) {
            store.remove(t.path());
        }
        t.renamed(newPath);
        store.put(newPath, t.watermark());
    }

    /** A file that left the patterns: find its new name in the same directory, or note that it is deleted. */
    private void locateOutsidePatterns(Tailer t) {
        Path dir = Path.of(t.path()).getParent();
        Path found = findByKey(dir, t.key());
        if (found != null) {
            String old = t.path();
            moveEntry(t, found.toString());
            log.info("file left the watched patterns path={} new_path={}; reading it to its end", old, found);
        } else {
            Watermark w = store.get(t.path());
            if (w != null && w.inode() == t.key().inode()) {
                store.remove(t.path());
            }
            log.info("file deleted path={}; reading what remains through the open descriptor", t.path());
        }
    }

    /**
     * On the first scan, before unmatched files open from the beginning: entries that matched no file were
     * rotated away while we were stopped. A renamed file found by identity is read to its end from its
     * watermark, and a new file at its old path waits for it ({@code vacated}).
     */
    private void settleStaleEntries(Map<String, Tailer> vacated) {
        for (Map.Entry<String, Watermark> e : new ArrayList<>(store.entries().entrySet())) {
            String p = e.getKey();
            if (isOpenPath(p)) {
                continue;
            }
            Watermark w = e.getValue();
            Path path = Path.of(p);
            if (!SourceScanner.directoryExists(path)) {
                continue; // the directory may come back (unmounted volume): keep the entry
            }
            if (Files.isRegularFile(path)) {
                // Same identity, fingerprint included: a new file that reused the inode is not the same file.
                try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                    if (identityMatches(w, FileKey.of(path), ch)) {
                        continue; // same file, just not watched now: keep its entry for when it is again
                    }
                } catch (IOException ignored) {
                    // treat as gone
                }
            }
            Path renamed = findByKeyAndWatermark(path.getParent(), w);
            if (renamed != null) {
                FileChannel ch = openChannel(renamed);
                if (ch != null) {
                    try {
                        store.remove(p);
                        FileKey key = FileKey.of(renamed);
                        Source src = new Source(renamed.getParent(), List.of(), scanner.serviceOf(renamed.getParent()));
                        register(new Found(renamed, key, ch.size(), 0, src), ch, w.offset(), null);
                        open.get(key).markUnseen(0);
                        vacated.putIfAbsent(p, open.get(key));
                        log.info("resuming file from watermark path={} offset={} (rotated from {} while the forwarder "
                                + "was stopped; it is read to its end, then closed)", renamed, w.offset(), p);
                        continue;
                    } catch (IOException ex) {
                        closeQuietly(ch);
                    }
                }
            }
            store.remove(p);
            if (w.size() != Watermark.UNKNOWN && w.size() > w.offset()) {
                long lost = w.size() - w.offset();
                metrics.gapBytes.increment(lost);
                log.warn("file {} was rotated away and deleted while the forwarder was stopped: at least {} bytes "
                        + "after its watermark were never read (counted in log_forwarder_gap_bytes_total)", p, lost);
            } else {
                log.info("forgetting watermark of vanished file path={} offset={}", p, w.offset());
            }
        }
    }

    private boolean isOpenPath(String p) {
        for (Tailer t : open.values()) {
            if (t.path().equals(p)) {
                return true;
            }
        }
        return false;
    }

    private static boolean identityMatches(Watermark w, FileKey key, FileChannel ch) throws IOException {
        if (w.inode() != key.inode()) {
            return false;
        }
        if (w.device() != Watermark.UNKNOWN && w.device() != key.device()) {
            return false;
        }
        if (w.fingerprint() == null) {
            return true;
        }
        return Fingerprint.matches(ch, Long.parseUnsignedLong(w.fingerprint(), 16), w.fingerprintBytes());
    }

    private static Path findByKey(Path dir, FileKey key) {
        if (dir == null) {
            return null;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                try {
                    if (key.equals(FileKey.of(p))) {
                        return p;
                    }
                } catch (IOException ignored) {
                    // vanished while listing
                }
            }
        } catch (IOException ignored) {
            // directory gone
        }
        return null;
    }

    private static Path findByKeyAndWatermark(Path dir, Watermark w) {
        if (dir == null) {
            return null;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                try {
                    FileKey k = FileKey.of(p);
                    if (!Files.isRegularFile(p)) {
                        continue;
                    }
                    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                        if (identityMatches(w, k, ch)) {
                            return p;
                        }
                    }
                } catch (IOException ignored) {
                    // vanished while listing
                }
            }
        } catch (IOException ignored) {
            // directory gone
        }
        return null;
    }

    /**
     * Opens a file the scan listed, or returns null if its path no longer names the file the listing saw:
     * a rotation between the listing and the open would otherwise tie one file's identity (its watermark,
     * record ids) to another file's content. Checked by the path's identity just after the open.
     */
    private FileChannel openFound(Found f) {
        FileChannel ch = openChannel(f.path());
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
        log.debug("path={} changed between the listing and the open; it is looked at again on the next scan",
                f.path());
        return null;
    }

    private FileChannel openChannel(Path p) {
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

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to add
        }
    }
}
