package dev.logpipe.forwarder.config;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.forwarder.config.ForwarderConfig.FileSink;
import dev.logpipe.forwarder.config.ForwarderConfig.HttpCompression;
import dev.logpipe.forwarder.config.ForwarderConfig.Sink;
import dev.logpipe.forwarder.config.ForwarderConfig.SinkType;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * The {@code sink} section of the forwarder's configuration: the sink type and the file, stdout, HTTP and Kafka
 * sinks' settings, and the optional spool. Relative paths resolve against the base directory; every error is a
 * {@link ConfigException} starting with its key path. Part of {@link ConfigLoader}.
 */
final class SinkSection {
    private final Path baseDir;

    SinkSection(Path baseDir) {
        this.baseDir = baseDir;
    }

    Sink read(ConfigNode n) throws ConfigException {
        SinkType type = n.choice("type", SinkType.class, SinkType.STDOUT);
        ConfigNode f = n.child("file");
        Path path = f.path("path", baseDir, null);
        Format format = f.choice("format", Format.class, Format.NDJSON);
        boolean fsync = f.bool("fsync", false);
        f.rejectUnknownKeys();
        ConfigNode s = n.child("stdout");
        Format stdoutFormat = s.choice("format", Format.class, Format.NDJSON);
        s.rejectUnknownKeys();
        ForwarderConfig.HttpSink http = http(n.child("http"), type == SinkType.HTTP);
        ForwarderConfig.KafkaSink kafka = kafka(n.child("kafka"), type == SinkType.KAFKA);
        ForwarderConfig.Spool spool = spool(n.child("spool"));
        n.rejectUnknownKeys();
        if (type == SinkType.FILE && path == null) {
            throw new ConfigException("sink.file.path: is required when sink.type is file");
        }
        return new Sink(
                type, path == null ? null : new FileSink(path, format, fsync), stdoutFormat, http, kafka, spool);
    }

    private ForwarderConfig.Spool spool(ConfigNode s) throws ConfigException {
        boolean enabled = s.bool("enabled", false);
        Path path = s.path("path", baseDir, baseDir.resolve(".log-forwarder/spool"));
        long maxBytes = s.bytes("max_bytes", 1024L * 1024 * 1024, 1024 * 1024, Long.MAX_VALUE);
        long segmentBytes = s.bytes("segment_bytes", 64L * 1024 * 1024, 64 * 1024, 1024L * 1024 * 1024);
        ForwarderConfig.WhenFull whenFull =
                s.choice("when_full", ForwarderConfig.WhenFull.class, ForwarderConfig.WhenFull.BLOCK);
        s.rejectUnknownKeys();
        if (!enabled) {
            String leftovers = SpoolLeftovers.describe(path);
            if (leftovers != null) {
                LoggerFactory.getLogger(ConfigLoader.class).warn(leftovers);
            }
            return null;
        }
        if (segmentBytes * 4 > maxBytes) {
            throw new ConfigException("sink.spool.segment_bytes: must be at most a quarter of sink.spool.max_bytes ("
                    + maxBytes / 4 + " bytes), was " + segmentBytes + " (space is freed a segment at a time)");
        }
        return new ForwarderConfig.Spool(path, maxBytes, segmentBytes, whenFull);
    }

    /** Producer settings we own: refusing them keeps acks=all with idempotence, and our serializers. */
    private static final Set<String> FIXED_PRODUCER_SETTINGS = Set.of(
            "acks",
            "enable.idempotence",
            "bootstrap.servers",
            "key.serializer",
            "value.serializer",
            "max.in.flight.requests.per.connection",
            "retries",
            "transactional.id",
            "compression.type",
            "linger.ms",
            "batch.size",
            "request.timeout.ms",
            "delivery.timeout.ms");

    private static final Set<String> COMPRESSIONS = Set.of("zstd", "lz4", "gzip", "snappy", "none");

    private ForwarderConfig.KafkaSink kafka(ConfigNode k, boolean used) throws ConfigException {
        String bootstrap = k.string("bootstrap_servers", null);
        String topic = k.string("topic", "logpipe.records");
        String clientId = k.string("client_id", null);
        String compression = k.string("compression", "lz4").toLowerCase(Locale.ROOT);
        Duration linger = k.duration("linger", Duration.ofMillis(5), Duration.ZERO);
        long batchBytes = k.bytes("batch_size", 256 * 1024, 1024, 64L * 1024 * 1024);
        Duration delivery = k.duration("delivery_timeout", Duration.ofSeconds(30), Duration.ofSeconds(1));
        int messageRecords = (int) k.integer("message_max_records", 1000, 1, 100_000);
        int messageBytes = (int) k.bytes("message_max_bytes", 256 * 1024, 1024, 64L * 1024 * 1024);
        String acks = k.string("acks", "all");
        boolean idempotence = k.bool("enable_idempotence", true);
        Map<String, String> props = k.stringMap("properties");
        k.rejectUnknownKeys();
        if (!"all".equals(acks) && !"-1".equals(acks)) {
            throw new ConfigException("sink.kafka.acks: must be all (a watermark advances only on a committed "
                    + "broker write), was \"" + acks + "\"");
        }
        if (!idempotence) {
            throw new ConfigException(
                    "sink.kafka.enable_idempotence: must be true (retries must not duplicate or " + "reorder records)");
        }
        for (String key : props.keySet()) {
            if (FIXED_PRODUCER_SETTINGS.contains(key)) {
                throw new ConfigException("sink.kafka.properties." + key + ": is set by the forwarder (acks=all, "
                        + "idempotence, serializers) or by its own sink.kafka key (compression, linger, batch_size, "
                        + "delivery_timeout); it cannot be overridden here");
            }
        }
        if (!COMPRESSIONS.contains(compression)) {
            throw new ConfigException("sink.kafka.compression: must be one of zstd, lz4, gzip, snappy, none, was \""
                    + compression + "\"");
        }
        if (!used) {
            return null;
        }
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new ConfigException("sink.kafka.bootstrap_servers: is required when sink.type is kafka");
        }
        if (topic.isBlank() || !topic.matches("[a-zA-Z0-9._-]{1,249}") || topic.equals(".") || topic.equals("..")) {
            throw new ConfigException("sink.kafka.topic: must be a Kafka topic name (letters, digits, '.', '_', '-'), "
                    + "was \"" + topic + "\"");
        }
        return new ForwarderConfig.KafkaSink(
                bootstrap,
                topic,
                clientId,
                compression,
                linger,
                batchBytes,
                delivery,
                messageRecords,
                messageBytes,
                props);
    }

    private ForwarderConfig.HttpSink http(ConfigNode h, boolean used) throws ConfigException {
        String url = h.string("url", null);
        String token = h.string("token", null);
        String tokenEnv = h.string("token_env", null);
        Duration connect = h.duration("connect_timeout", Duration.ofSeconds(5), Duration.ofMillis(1));
        Duration request = h.duration("request_timeout", Duration.ofSeconds(30), Duration.ofMillis(1));
        HttpCompression compression = h.choice("compression", HttpCompression.class, HttpCompression.GZIP);
        long maxRecords = h.integer("max_records", 5000, 1, 1_000_000);
        long maxBytes = h.bytes("max_bytes", 4L * 1024 * 1024, 1024, 256L * 1024 * 1024);
        Path deadLetter =
                h.path("dead_letter_path", baseDir, baseDir.resolve(".log-forwarder/http-dead-letter.ndjson"));
        long deadLetterMax = h.bytes("dead_letter_max_bytes", 1024L * 1024 * 1024, 64 * 1024, Long.MAX_VALUE);
        h.rejectUnknownKeys();
        if (!used) {
            return null;
        }
        if (url == null) {
            throw new ConfigException("sink.http.url: is required when sink.type is http");
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("sink.http.url: is not a valid URL: \"" + url + "\"");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!"http".equals(scheme) && !"https".equals(scheme) || uri.getHost() == null) {
            throw new ConfigException(
                    "sink.http.url: must be an http:// or https:// URL with a host, was \"" + url + "\"");
        }
        if (token != null && tokenEnv != null) {
            throw new ConfigException(
                    "sink.http.token_env: set either sink.http.token or sink.http.token_env, not both");
        }
        String tokenKey = "sink.http.token";
        if (tokenEnv != null) {
            tokenKey = "sink.http.token_env";
            token = System.getenv(tokenEnv);
            if (token == null || token.isBlank()) {
                throw new ConfigException("sink.http.token_env: environment variable " + tokenEnv + " is not set");
            }
        }
        if (token != null) {
            token = token.strip();
            if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
                // The value itself is never echoed: it is a secret.
                throw new ConfigException(tokenKey + ": the token must be non-empty printable ASCII without spaces "
                        + "(it goes into an Authorization header)");
            }
        }
        return new ForwarderConfig.HttpSink(
                uri, token, connect, request, compression, (int) maxRecords, maxBytes, deadLetter, deadLetterMax);
    }
}
