package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.internal.metrics.ForwarderMetrics;
import dev.logpipe.forwarder.internal.tail.SourceScanner.Found;
import dev.logpipe.forwarder.internal.watermark.PublishedJournal;
import dev.logpipe.forwarder.internal.watermark.Watermark;
import dev.logpipe.forwarder.internal.watermark.WatermarkStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The set of open files and how it follows the file system: new files, renames (rotation), deletions,
 * and where each file starts reading (its watermark when the identity matches, else offset 0). Files are
 * keyed by device and inode, so a rename never re-reads a file; the watermark file stays keyed by path
 * as docs/watermarks-and-restarts.md specifies. Confined to the pipeline thread.
 */
final class Tailers {
    private static final Logger log = LoggerFactory.getLogger(Tailers.class);

    private final SourceScanner scanner;
    private final WatermarkStore store;
    private final PublishedJournal journal;
    private final ForwarderMetrics metrics;
    /** The parsers of each source's files, by the source's parser (null: the top-level one). */
    private final Function<ForwarderConfig.Source, FileParsers> parsersOf;

    private final long rotateWaitNanos;
    /**
     * Paths a file was renamed or moved away from and no file has taken since, with the file that left (the
     * successor waits for it, and its arrival is a rotation). Bounded: the oldest are forgotten first.
     */
    private final Map<String, Tailer> vacatedEarlier = bounded();
    /** Vacated paths whose file has been read and closed: no one to wait for, but a new file there is a rotation. */
    private final Map<String, Boolean> leftEarlier = bounded();

    private static <V> Map<String, V> bounded() {
        return new LinkedHashMap<>() {
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
    private final FileOpener opener;
    private final RestartRecovery recovery;
    private final RestartRecovery.OpenFiles openFiles = new RestartRecovery.OpenFiles() {
        @Override
        public boolean isOpenPath(String path) {
            return Tailers.this.isOpenPath(path);
        }

        @Override
        public Tailer register(Found f, FileChannel ch, long start, Tailer predecessor) throws IOException {
            return Tailers.this.register(f, ch, start, predecessor);
        }
    };

    Tailers(
            SourceScanner scanner,
            WatermarkStore store,
            PublishedJournal journal,
            ForwarderMetrics metrics,
            Function<ForwarderConfig.Source, FileParsers> parsersOf,
            long rotateWaitNanos) {
        this.scanner = scanner;
        this.store = store;
        this.journal = journal;
        this.metrics = metrics;
        this.parsersOf = parsersOf;
        this.rotateWaitNanos = rotateWaitNanos;
        this.opener = new FileOpener(scanner);
        this.recovery = new RestartRecovery(store, scanner, opener, metrics);
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
            recovery.settleStaleEntries(openFiles, vacated);
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

    /** Whether {@code t} left the sources at least rotate_wait ago and was read to its end (nothing more will come). */
    boolean ended(Tailer t, long now) {
        return t.isUnseen() && t.reachedEof() && now - t.unseenSinceNanos() >= rotateWaitNanos;
    }

    /** Files that left the sources at least rotate_wait ago and were read to their end: ready to close. */
    List<Tailer> finished(long now) {
        List<Tailer> done = new ArrayList<>();
        for (Tailer t : open.values()) {
            if (ended(t, now) && !t.hasPendingRecord()) {
                done.add(t);
            }
        }
        return done;
    }

    void close(Tailer t) {
        open.remove(t.key());
        store.removeIfInode(t.path(), t.key().inode());
        journal.release(t.journalKey());
        try {
            t.close();
        } catch (IOException e) {
            log.warn("closing {} failed: {}", t.path(), e.toString());
        }
        metrics.fileClosed();
        log.info(
                "stopped tailing file path={} offset={} (it left the watched sources and was read to its end)",
                t.path(),
                t.committed());
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
        FileChannel ch = opener.openListed(f);
        if (ch == null) {
            return true; // vanished or replaced since the listing; the next scan sees the truth
        }
        try {
            String p = f.path().toString();
            String matched = null;
            Watermark w = store.get(p);
            if (w != null && FileIdentity.matches(w, f.key(), ch)) {
                matched = p;
            } else {
                for (Map.Entry<String, Watermark> e : store.entries().entrySet()) {
                    if (!e.getKey().equals(p)
                            && !isOpenPath(e.getKey())
                            && FileIdentity.matches(e.getValue(), f.key(), ch)) {
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
                log.warn(
                        "file is shorter than its watermark (truncated while the forwarder was stopped?) path={} "
                                + "size={} watermark={}; reading it from the beginning",
                        p,
                        ch.size(),
                        start);
                start = 0;
            } else if (!matched.equals(p)) {
                log.info(
                        "resuming file from watermark path={} offset={} (renamed from {} while the forwarder was "
                                + "stopped)",
                        p,
                        start,
                        matched);
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
            FileOpener.closeQuietly(ch);
            log.warn("cannot read {}: {}; it is tried again on the next scan", f.path(), e.toString());
            return true;
        }
    }

    private void openFromBeginning(Found f, Map<String, Tailer> vacated) {
        FileChannel ch = opener.openListed(f);
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
            log.info(
                    "tailing file from beginning path={}{}",
                    f.path(),
                    stale != null ? " (new identity: inode " + f.key().inode() + ", was " + stale.inode() + ")" : "");
            register(f, ch, 0, predecessor);
        } catch (IOException e) {
            FileOpener.closeQuietly(ch);
            log.warn("cannot read {}: {}; it is tried again on the next scan", f.path(), e.toString());
        }
    }

    private Tailer register(Found f, FileChannel ch, long start, Tailer predecessor) throws IOException {
        Fingerprint fp = Fingerprint.of(ch);
        PublishedJournal.Key jk =
                new PublishedJournal.Key(f.key().device(), f.key().inode(), fp.hash());
        long replayUntil = fp.complete() ? journal.previouslyPublished(jk) : -1;
        FileDecoding decoding = parsersOf
                .apply(f.source())
                .forFile(f.path().toString(), f.source().service());
        Tailer t = new Tailer(
                f.path().toString(),
                f.key(),
                ch,
                fp,
                new Tailer.Start(start, replayUntil > start ? replayUntil : -1),
                decoding);
        if (predecessor != null) {
            t.follows(predecessor);
        }
        open.put(f.key(), t);
        store.put(t.path(), t.watermark());
        metrics.fileOpened();
        return t;
    }

    private void moveEntry(Tailer t, String newPath) {
        store.removeIfInode(t.path(), t.key().inode());
        t.renamed(newPath);
        store.put(newPath, t.watermark());
    }

    /** A file that left the patterns: find its new name in the same directory, or note that it is deleted. */
    private void locateOutsidePatterns(Tailer t) {
        Path dir = Path.of(t.path()).getParent();
        Path found = FileIdentity.find(dir, t.key());
        if (found != null) {
            String old = t.path();
            moveEntry(t, found.toString());
            log.info("file left the watched patterns path={} new_path={}; reading it to its end", old, found);
        } else {
            store.removeIfInode(t.path(), t.key().inode());
            log.info("file deleted path={}; reading what remains through the open descriptor", t.path());
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
}
