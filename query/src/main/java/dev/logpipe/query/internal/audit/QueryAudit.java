package dev.logpipe.query.internal.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.config.files.AtomicFile;
import dev.logpipe.query.config.QueryConfig;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * The query audit log: one JSON line per request, answered or refused, with the resolved tenant, the credential id
 * (never the key) and the client address, written before the answer is sent. Bounded on disk (docs/query.md#audit-log):
 * a line longer than {@code max_line_bytes} has its longest text values cut (their original lengths recorded under
 * {@code truncated}); the file is rotated when the next line would take it past {@code max_file_bytes} or it began
 * {@code rotate_after} ago, to {@code NAME.yyyyMMdd'T'HHmmss.SSS'Z'}; rotated files past {@code max_files} or older
 * than {@code max_age} are deleted. Files are created owner-only ({@code rw-------}). A line that cannot be written
 * is counted and logged; the service keeps answering (the metrics and the log say the audit is failing), and a failed
 * rotation keeps appending to the file it could not rotate (retried a minute later). Refusals of an address that
 * failed to authenticate too often are sampled ({@link Line#writeSampled}), so a flood of them cannot rotate the
 * history away. Thread-safe.
 */
public final class QueryAudit implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter ROTATED =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);
    /** A text value is never cut below this many characters; past that, the line is replaced by a short one. */
    private static final int MIN_KEPT_CHARS = 64;
    /** How long a failed rotation waits before it is tried again (each line past the size would try it otherwise). */
    static final Duration ROTATION_RETRY = Duration.ofMinutes(1);
    /** Memory for the sampled refusals' addresses, and what one address takes of it (key, entry, map node). */
    static final long SAMPLED_BYTES = 4L * 1024 * 1024;

    static final int SAMPLED_ENTRY_BYTES = 256;

    private final QueryConfig.Audit policy;
    private final InstantSource clock;
    private FileChannel out;
    private long size;
    private Instant began;
    private long failures;
    private long truncated;
    private long rotations;
    private long rotationFailures;
    private Instant noRotationBefore = Instant.MIN;
    private long suppressed;
    /** Per client address: until when its sampled refusals are not written, and how many were not. Access order. */
    private final Map<String, Sampled> sampled = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Sampled> eldest) {
            return size() > SAMPLED_BYTES / SAMPLED_ENTRY_BYTES; // its count stays in suppressed()
        }
    };

    private boolean closed;

    private static final class Sampled {
        Instant until;
        long count;
    }

    public QueryAudit(QueryConfig.Audit policy, InstantSource clock) throws IOException {
        this.policy = policy;
        this.clock = clock;
        Files.createDirectories(policy.path().toAbsolutePath().getParent());
        open();
    }

    private void open() throws IOException {
        Set<OpenOption> options =
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        Path p = policy.path();
        out = AtomicFile.posix()
                ? FileChannel.open(p, options, AtomicFile.ownerOnly())
                : FileChannel.open(p, options, new FileAttribute<?>[0]);
        size = out.size();
        // an existing file (a restart) began when its first line was written
        began = size == 0 ? clock.instant() : firstLineTime(p).orElse(clock.instant());
    }

    private static Optional<Instant> firstLineTime(Path p) {
        try (var r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
            char[] buf = new char[64]; // {"time":"2026-12-01T12:00:00.123456789Z", ...
            int n = r.read(buf);
            String head = n <= 0 ? "" : new String(buf, 0, n);
            int at = head.indexOf("\"time\":\"");
            int end = at < 0 ? -1 : head.indexOf('"', at + 8);
            return end < 0 ? Optional.empty() : Optional.of(Instant.parse(head.substring(at + 8, end)));
        } catch (IOException | DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** A new line for one request, with {@code time}, {@code endpoint} and {@code client} set; see {@link Line}. */
    public Line line(String endpoint, String client) {
        ObjectNode o = JSON.createObjectNode();
        o.put("time", clock.instant().toString());
        o.put("endpoint", endpoint);
        o.put("client", client == null ? "unknown" : client);
        return new Line(o);
    }

    /**
     * One request's line: endpoints add to {@link #node}; {@link #write} appends it, once: whichever path ends the
     * request first (an answer, a refusal, an error, a tail starting) writes it, later calls do nothing.
     */
    public final class Line {
        private final ObjectNode node;
        private boolean written;

        private Line(ObjectNode node) {
            this.node = node;
        }

        public ObjectNode node() {
            return node;
        }

        /** Appends the line unless it was already written; true when this call wrote it. */
        public synchronized boolean write() {
            if (written) {
                return false;
            }
            written = true;
            append(node);
            return true;
        }

        /**
         * As {@link #write} for a refusal that can come in floods from one client (an address throttled for failed
         * authentications): at most one such line per client address ({@link AuthFailures#addressKey}: an IPv6 /64) per
         * {@code window} (the refusal's Retry-After) is
         * appended; the next one appended carries {@code "suppressed":N}, the lines left out since. Every line left
         * out is counted ({@link #suppressed()}).
         */
        public synchronized boolean writeSampled(Duration window) {
            if (written) {
                return false;
            }
            written = true;
            long left = sample(AuthFailures.addressKey(node.path("client").asText()), window);
            if (left < 0) {
                return false;
            }
            if (left > 0) {
                node.put("suppressed", left);
            }
            append(node);
            return true;
        }
    }

    /** -1 when {@code client}'s line is left out now; else how many were left out before it. */
    private synchronized long sample(String client, Duration window) {
        Instant now = clock.instant();
        Sampled s = sampled.computeIfAbsent(client, k -> new Sampled());
        if (s.until != null && now.isBefore(s.until)) {
            s.count++;
            suppressed++;
            return -1;
        }
        long left = s.count;
        s.count = 0;
        s.until = now.plus(window);
        return left;
    }

    /** Appends one line, cut to {@code max_line_bytes}, rotating first when it is due. */
    public synchronized void append(ObjectNode line) {
        if (closed) {
            failures++;
            return;
        }
        byte[] bytes = capped(line);
        try {
            Instant now = clock.instant();
            if (out == null) { // a rotation failed to open the new file: try again
                open();
            } else if (size > 0
                    && !now.isBefore(noRotationBefore)
                    && (size + bytes.length > policy.maxFileBytes()
                            || !now.isBefore(began.plus(policy.rotateAfter())))) {
                rotate(now);
            }
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                out.write(b);
            }
            size += bytes.length;
        } catch (IOException e) {
            failures++;
            LoggerFactory.getLogger(QueryAudit.class).warn("audit line not written: {}", e.toString());
        }
    }

    /** The line as UTF-8 with its newline, at most {@code max_line_bytes}. */
    private byte[] capped(ObjectNode line) {
        byte[] bytes = (line.toString() + "\n").getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= policy.maxLineBytes()) {
            return bytes;
        }
        truncated++;
        ObjectNode cut = line.deepCopy();
        ObjectNode lengths = JSON.createObjectNode();
        while (bytes.length > policy.maxLineBytes()) {
            String longest = null;
            int longestChars = MIN_KEPT_CHARS;
            for (Iterator<Map.Entry<String, JsonNode>> it = cut.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isTextual() && e.getValue().asText().length() > longestChars) {
                    longest = e.getKey();
                    longestChars = e.getValue().asText().length();
                }
            }
            if (longest == null) {
                return shortLine(line, bytes.length);
            }
            String text = cut.get(longest).asText();
            if (!lengths.has(longest)) {
                lengths.put(longest, text.length());
            }
            int over = bytes.length - policy.maxLineBytes();
            // a char is 1 to 6 bytes in JSON; cut at least what is over, and at least half
            int keep = Math.max(MIN_KEPT_CHARS, Math.min(text.length() / 2, text.length() - over));
            if (Character.isHighSurrogate(text.charAt(keep - 1))) {
                keep--;
            }
            cut.put(longest, text.substring(0, keep) + "…");
            cut.set("truncated", lengths);
            bytes = (cut.toString() + "\n").getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }

    /** What is left of a line whose long values cannot be cut enough: who, what, the answer, and its length. */
    private byte[] shortLine(ObjectNode line, int length) {
        ObjectNode o = JSON.createObjectNode();
        for (String k : List.of("time", "endpoint", "client", "tenant_id", "credential_id", "status", "outcome")) {
            JsonNode v = line.get(k);
            if (v != null && (!v.isTextual() || v.asText().length() <= MIN_KEPT_CHARS)) {
                o.set(k, v);
            }
        }
        o.put("truncated_line_bytes", length);
        return (o.toString() + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Renames the file aside and opens a new one. The channel is closed first (some file systems cannot rename an
     * open file); when the rename fails the same file is opened again and appended to, and the rotation is retried
     * {@link #ROTATION_RETRY} later; when the new file cannot be opened the next line tries again. Counted either way.
     */
    private void rotate(Instant now) throws IOException {
        out.close();
        out = null;
        Path p = policy.path();
        Path target = p.resolveSibling(p.getFileName() + "." + ROTATED.format(now));
        boolean moved = false;
        try {
            for (int i = 1; !moved; i++) {
                try {
                    Files.move(p, target, StandardCopyOption.ATOMIC_MOVE);
                    moved = true;
                } catch (FileAlreadyExistsException e) {
                    target = p.resolveSibling(p.getFileName() + "." + ROTATED.format(now) + "-" + i);
                }
            }
        } catch (IOException e) {
            rotationFailures++;
            noRotationBefore = now.plus(ROTATION_RETRY);
            LoggerFactory.getLogger(QueryAudit.class)
                    .warn("audit log not rotated, still appending to {}: {}", p, e.toString());
        }
        try {
            open();
        } catch (IOException e) {
            if (moved) {
                rotations++;
            }
            rotationFailures++;
            throw e;
        }
        if (moved) {
            rotations++;
            began = now;
            prune(now);
        }
    }

    /** Deletes rotated files beyond {@code max_files} (oldest first) and those rotated before {@code max_age}. */
    private void prune(Instant now) {
        Path p = policy.path();
        String prefix = p.getFileName() + ".";
        List<Path> rotated = new ArrayList<>();
        try (DirectoryStream<Path> ds =
                Files.newDirectoryStream(p.toAbsolutePath().getParent(), prefix + "*")) {
            ds.forEach(rotated::add);
        } catch (IOException e) {
            LoggerFactory.getLogger(QueryAudit.class).warn("rotated audit logs not listed: {}", e.toString());
            return;
        }
        rotated.sort(null); // the names sort by rotation time
        Instant oldest = now.minus(policy.maxAge());
        for (int i = 0; i < rotated.size(); i++) {
            Path r = rotated.get(i);
            Instant at = rotatedAt(r.getFileName().toString().substring(prefix.length()));
            if (i < rotated.size() - policy.maxFiles() || (at != null && at.isBefore(oldest))) {
                try {
                    Files.deleteIfExists(r);
                } catch (IOException e) {
                    LoggerFactory.getLogger(QueryAudit.class).warn("old audit log {} not deleted: {}", r, e.toString());
                }
            }
        }
    }

    private static Instant rotatedAt(String suffix) {
        try {
            return Instant.from(ROTATED.parse(suffix.length() > 20 ? suffix.substring(0, 20) : suffix));
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    public synchronized long failures() {
        return failures;
    }

    /** Lines whose text values were cut to fit {@code max_line_bytes}. */
    public synchronized long truncated() {
        return truncated;
    }

    public synchronized long rotations() {
        return rotations;
    }

    /** Rotations that failed (the rename, or opening the new file); appending went on where it could. */
    public synchronized long rotationFailures() {
        return rotationFailures;
    }

    /** Sampled refusals' lines left out ({@link Line#writeSampled}). */
    public synchronized long suppressed() {
        return suppressed;
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            if (out != null) {
                out.close();
            }
        }
    }
}
