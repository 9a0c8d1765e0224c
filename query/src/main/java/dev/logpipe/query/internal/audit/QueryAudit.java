package dev.logpipe.query.internal.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import org.slf4j.LoggerFactory;

/**
 * The query audit log: one JSON line per request, answered or refused, with the resolved tenant and the credential
 * id (never the key), appended and flushed before the answer is sent. A line that cannot be written is counted and
 * logged; the service keeps answering (the metrics and the log say the audit is failing).
 */
public final class QueryAudit implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final BufferedWriter out;
    private final InstantSource clock;
    private long failures;

    public QueryAudit(Path file, InstantSource clock) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        this.out = Files.newBufferedWriter(
                file,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND,
                StandardOpenOption.WRITE);
        this.clock = clock;
    }

    /** A new line, with {@code time} set; fill it and {@link #append} it. */
    public ObjectNode line() {
        ObjectNode o = JSON.createObjectNode();
        o.put("time", clock.instant().toString());
        return o;
    }

    public synchronized void append(ObjectNode line) {
        try {
            out.write(line.toString());
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            failures++;
            LoggerFactory.getLogger(QueryAudit.class).warn("audit line not written: {}", e.toString());
        }
    }

    public synchronized long failures() {
        return failures;
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
