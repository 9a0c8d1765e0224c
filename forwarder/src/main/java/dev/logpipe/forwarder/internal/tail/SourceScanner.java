package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.config.ForwarderConfig.Source;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Lists the regular files that the configured sources match right now, with their OS identity. */
public final class SourceScanner {
    private static final Logger log = LoggerFactory.getLogger(SourceScanner.class);

    /** One file found: where it is, what it is, and the source that matched it. */
    public record Found(Path path, FileKey key, long size, long modifiedMillis, Source source) {}

    private record Compiled(Source source, List<PathMatcher> matchers) {}

    /** What one directory listing found, and the directory's modification time then. */
    private record Listing(long dirModifiedNanos, long listedAtNanos, List<Found> found) {}

    /** A directory whose mtime has not changed has the same entries; still list it this often to be safe. */
    private static final long RELIST_NANOS = 10_000_000_000L;

    private final List<Compiled> sources = new ArrayList<>();
    private final Map<Compiled, Listing> listings = new HashMap<>();
    private final Map<Path, Boolean> missingWarned = new LinkedHashMap<>();

    public SourceScanner(List<Source> configured) {
        for (Source s : configured) {
            List<PathMatcher> m = new ArrayList<>();
            for (String p : s.patterns()) {
                m.add(s.directory().getFileSystem().getPathMatcher("glob:" + p));
            }
            sources.add(new Compiled(s, m));
        }
    }

    /**
     * Every matching file, oldest modification first; a path matched by two sources is listed once. A
     * directory whose modification time is unchanged since its last listing (no entry was added, removed
     * or renamed) is not listed again, except every 10 s, which keeps 1,000 idle files cheap.
     */
    public List<Found> scan(long nowNanos) {
        Map<Path, Found> found = new LinkedHashMap<>();
        for (Compiled c : sources) {
            Path dir = c.source().directory();
            try {
                long dirModified = Files.getLastModifiedTime(dir).to(TimeUnit.NANOSECONDS);
                Listing last = listings.get(c);
                if (last == null
                        || last.dirModifiedNanos() != dirModified
                        || nowNanos - last.listedAtNanos() >= RELIST_NANOS) {
                    last = new Listing(dirModified, nowNanos, list(c));
                    listings.put(c, last);
                }
                missingWarned.remove(dir);
                for (Found f : last.found()) {
                    found.putIfAbsent(f.path(), f);
                }
            } catch (NoSuchFileException e) {
                listings.remove(c);
                if (missingWarned.put(dir, Boolean.TRUE) == null) {
                    log.warn("watched directory {} does not exist (yet); it is checked again every scan", dir);
                }
            } catch (IOException e) {
                listings.remove(c);
                if (missingWarned.put(dir, Boolean.TRUE) == null) {
                    log.warn("cannot list watched directory {}: {}", dir, e.toString());
                }
            }
        }
        List<Found> out = new ArrayList<>(found.values());
        out.sort((a, b) -> Long.compare(a.modifiedMillis(), b.modifiedMillis()));
        return out;
    }

    private static List<Found> list(Compiled c) throws IOException {
        List<Found> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(c.source().directory())) {
            for (Path p : ds) {
                if (matches(c, p)) {
                    Found f = stat(p, c.source());
                    if (f != null) {
                        out.add(f);
                    }
                }
            }
        }
        return out;
    }

    /** Makes the next {@link #scan} list every directory again (a listing turned out to be stale). */
    public void relistNextScan() {
        listings.clear();
    }

    /** The parser of the first source watching {@code dir}, for a file that left its patterns; or null (the top-level one). */
    public ForwarderConfig.Parser parserOf(Path dir) {
        for (Compiled c : sources) {
            if (c.source().directory().equals(dir)) {
                return c.source().parser();
            }
        }
        return null;
    }

    /** The {@code service} of the first source watching {@code dir}, for a file that left its patterns; or null. */
    public String serviceOf(Path dir) {
        for (Compiled c : sources) {
            if (c.source().directory().equals(dir) && c.source().service() != null) {
                return c.source().service();
            }
        }
        return null;
    }

    /** Whether a source directory exists, so that its files' absence means they are gone. */
    public static boolean directoryExists(Path file) {
        Path dir = file.getParent();
        return dir != null && Files.isDirectory(dir);
    }

    private static boolean matches(Compiled c, Path p) {
        Path name = p.getFileName();
        for (PathMatcher m : c.matchers()) {
            if (m.matches(name)) {
                return true;
            }
        }
        return false;
    }

    private static Found stat(Path p, Source source) {
        try {
            Map<String, Object> a = Files.readAttributes(p, "unix:dev,ino,size,lastModifiedTime,isRegularFile");
            if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
                return null;
            }
            return new Found(
                    p,
                    new FileKey(((Number) a.get("dev")).longValue(), ((Number) a.get("ino")).longValue()),
                    ((Number) a.get("size")).longValue(),
                    ((FileTime) a.get("lastModifiedTime")).toMillis(),
                    source);
        } catch (IOException e) {
            return null; // vanished between listing and stat: the next scan sees the truth
        }
    }
}
