package dev.logpipe.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Formats the broker's log directory for KRaft, once. A directory that is already formatted keeps its cluster id:
 * formatting it again with a new one would make the broker refuse to start
 * (the cluster id in {@code meta.properties} would no longer match the metadata log).
 */
final class StorageFormat {
    private static final Logger log = LoggerFactory.getLogger(StorageFormat.class);
    static final String META_PROPERTIES = "meta.properties";

    private StorageFormat() {}

    /** Formats {@code logDir} unless it already is; returns the cluster id it is formatted with. */
    static String ensureFormatted(Path logDir) throws IOException {
        Optional<String> existing = readClusterId(logDir);
        String clusterId = existing.orElseGet(() -> Uuid.randomUuid().toString());
        Files.createDirectories(logDir);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            new Formatter()
                    .setPrintStream(print) // it prints to System.out otherwise, and BrokerMain's stdout is a protocol
                    .setNodeId(KafkaSettings.NODE_ID)
                    .setClusterId(clusterId)
                    .setDirectories(List.of(logDir.toString()))
                    .setMetadataLogDirectory(logDir.toString())
                    .setControllerListenerName(KafkaSettings.CONTROLLER_LISTENER)
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setIgnoreFormatted(true)
                    .run();
        } catch (Exception e) { // Formatter.run() declares Exception: FormatterException, I/O failures
            throw new IOException("cannot format " + logDir + " for cluster " + clusterId + ": " + e.getMessage(), e);
        }
        log.debug("{}", out.toString(StandardCharsets.UTF_8).strip());
        if (existing.isEmpty()) {
            log.info("formatted {} for new cluster {}", logDir, clusterId);
        }
        return readClusterId(logDir)
                .orElseThrow(() -> new IOException("formatting wrote no " + META_PROPERTIES + " in " + logDir));
    }

    /** The {@code cluster.id} of a formatted log directory; empty if it is not formatted. */
    static Optional<String> readClusterId(Path logDir) throws IOException {
        Path file = logDir.resolve(META_PROPERTIES);
        Properties meta = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            meta.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        String id = meta.getProperty("cluster.id");
        if (id == null || id.isBlank()) {
            throw new IOException(file + ": formatted, but has no cluster.id");
        }
        return Optional.of(id.strip());
    }
}
