package dev.logpipe.forwarder.config;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The forwarder's whole configuration, parsed once at startup by {@link ConfigLoader} and immutable
 * afterwards. Every path is absolute. docs/configuration.md describes each key.
 */
public record ForwarderConfig(
        String host,
        Watch watch,
        Parser parser,
        Filter filter,
        Transform transform,
        Sink sink,
        Logging logging,
        Metrics metrics) {

    public ForwarderConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(watch, "watch");
        Objects.requireNonNull(parser, "parser");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(transform, "transform");
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(logging, "logging");
        Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * Fields the forwarder writes itself: a transform may not set them (the config check) and a JSON or logfmt line's
     * key of the same name is dropped (the readers), so no record has a duplicate key.
     */
    public static final Set<String> RESERVED_FIELDS = Set.of(
            "log.file.path",
            "log.offset",
            "log.truncated",
            "log.parse_error",
            "log.partial",
            "stream",
            "k8s.pod.name",
            "k8s.namespace.name",
            "k8s.container.name",
            "container.id");

    /**
     * {@code parseThreads}: threads that parse and encode the records of structured and container sources beside
     * the reading thread (0: the reading thread does it).
     */
    public record Watch(
            Duration poll,
            Duration scanInterval,
            Duration rotateWait,
            long readBufferBytes,
            int parseThreads,
            State state,
            List<Source> sources) {
        public Watch {
            sources = List.copyOf(sources);
        }
    }

    public record State(Path path, Duration flushInterval, long flushEvery, boolean resetOnCorrupt) {}

    /**
     * A directory with file-name glob patterns, or a single file (then {@code patterns} holds its name).
     * {@code parser} is the source's own parser ({@code watch.sources[i].parser}), or null for the top-level one.
     */
    public record Source(Path directory, List<String> patterns, String service, Parser parser) {
        public Source {
            Objects.requireNonNull(directory, "directory");
            patterns = List.copyOf(patterns);
        }

        /** A source read with the top-level parser. */
        public Source(Path directory, List<String> patterns, String service) {
            this(directory, patterns, service, null);
        }

        /** The parser for this source's files: its own, else {@code topLevel}. */
        public Parser parserOr(Parser topLevel) {
            return parser == null ? topLevel : parser;
        }
    }

    public enum ParserType {
        LINE,
        MULTILINE
    }

    /**
     * {@code format} is how a file's lines are written; {@code content} is what the application wrote inside a
     * container runtime's line (cri, docker), and equals {@code format} for text, json and logfmt.
     */
    public record Parser(
            ParserType type,
            Duration flushInterval,
            int maxRecordBytes,
            Multiline multiline,
            LineFormat format,
            LineFormat content,
            KeyMapping keys,
            Kubernetes kubernetes) {
        public Parser {
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(content, "content");
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(kubernetes, "kubernetes");
        }

        public boolean container() {
            return format == LineFormat.CRI || format == LineFormat.DOCKER;
        }

        public boolean structured() {
            return content == LineFormat.JSON || content == LineFormat.LOGFMT;
        }
    }

    /** {@code parser.format}: plain text lines, JSON or logfmt lines, or a container runtime's log files. */
    public enum LineFormat {
        TEXT,
        JSON,
        LOGFMT,
        CRI,
        DOCKER
    }

    /** Keys of a JSON or logfmt line (flattened names) that feed each schema field, in order of preference. */
    public record KeyMapping(
            List<String> message,
            List<String> level,
            List<String> time,
            List<String> traceId,
            List<String> spanId,
            List<String> service,
            List<String> region) {
        public static final KeyMapping DEFAULT = new KeyMapping(
                List.of("message", "msg", "log"),
                List.of("level", "severity", "lvl"),
                List.of("time", "timestamp", "ts", "@timestamp"),
                List.of("trace_id", "traceId"),
                List.of("span_id", "spanId"),
                List.of("service", "service.name"),
                List.of("region", "cloud.region"));

        public KeyMapping {
            message = List.copyOf(message);
            level = List.copyOf(level);
            time = List.copyOf(time);
            traceId = List.copyOf(traceId);
            spanId = List.copyOf(spanId);
            service = List.copyOf(service);
            region = List.copyOf(region);
        }
    }

    /**
     * Kubernetes names from container log file names ({@code <pod>_<namespace>_<container>-<id>.log});
     * {@code service} is a template over {pod}, {namespace}, {container}, or null to leave the service alone.
     */
    public record Kubernetes(boolean enabled, String service) {}

    /**
     * {@code transform.event_time}: where the record's event time comes from ({@code field}: an extract group or a
     * JSON/logfmt key; null: the parser's time keys, or the container runtime's timestamp) and its layout.
     */
    public record EventTime(String field, TimeLayout layout, ZoneId zone, String pattern) {
        public EventTime {
            Objects.requireNonNull(layout, "layout");
            Objects.requireNonNull(zone, "zone");
        }
    }

    /** {@code headerPattern} is an RE2 expression; null unless the parser type is multiline. */
    public record Multiline(String headerPattern, int maxLines) {}

    public record Filter(List<String> include, List<String> exclude) {
        public Filter {
            include = List.copyOf(include);
            exclude = List.copyOf(exclude);
        }

        public boolean isEmpty() {
            return include.isEmpty() && exclude.isEmpty();
        }
    }

    public enum OnNoMatch {
        KEEP,
        SKIP
    }

    /** {@code extractPattern} is an RE2 expression with named groups, or null; {@code eventTime} is never null. */
    public record Transform(
            Map<String, String> addFields,
            Map<String, String> renameFields,
            String extractPattern,
            OnNoMatch onNoMatch,
            EventTime eventTime) {
        public Transform {
            addFields = Map.copyOf(addFields);
            renameFields = Map.copyOf(renameFields);
        }

        public boolean isEmpty() {
            return addFields.isEmpty() && renameFields.isEmpty() && extractPattern == null;
        }
    }

    public enum SinkType {
        FILE,
        STDOUT,
        HTTP,
        KAFKA
    }

    /** The HTTP sink's Content-Encoding: gzip works with any endpoint, zstd costs about half its CPU per line. */
    public enum HttpCompression {
        GZIP,
        ZSTD,
        NONE
    }

    /** {@code file} is null unless the type is FILE, {@code http} null unless it is HTTP; {@code spool} null when off. */
    public record Sink(
            SinkType type, FileSink file, Format stdoutFormat, HttpSink http, KafkaSink kafka, Spool spool) {}

    /** What the disk spool does when it holds {@code max_bytes}. */
    public enum WhenFull {
        BLOCK,
        DROP_OLDEST
    }

    /** The optional disk spool between the reader and the sink ({@code sink.spool}). */
    public record Spool(Path path, long maxBytes, long segmentBytes, WhenFull whenFull) {}

    /**
     * Producer settings of the Kafka sink. {@code acks=all} and idempotence are fixed (docs/architecture.md, I2;
     * option B); {@code properties} pass through to the producer (TLS, SASL), never overriding those.
     */
    public record KafkaSink(
            String bootstrapServers,
            String topic,
            String clientId,
            String compression,
            Duration linger,
            long batchBytes,
            Duration deliveryTimeout,
            int messageMaxRecords,
            int messageMaxBytes,
            Map<String, String> properties) {
        public KafkaSink {
            properties = Map.copyOf(properties);
        }

        @Override
        public String toString() {
            return "KafkaSink[bootstrap=" + bootstrapServers + ", topic=" + topic + ", properties="
                    + properties.keySet() + "]";
        }
    }

    /** {@code token} is the resolved bearer token (from {@code token} or {@code token_env}), or null. */
    public record HttpSink(
            URI url,
            String token,
            Duration connectTimeout,
            Duration requestTimeout,
            HttpCompression compression,
            int maxRecords,
            long maxBytes,
            Path deadLetterPath,
            long deadLetterMaxBytes) {
        @Override
        public String toString() {
            return "HttpSink[url=" + url + ", token=" + (token == null ? "none" : "***") + "]";
        }
    }

    public record FileSink(Path path, Format format, boolean fsync) {}

    public record Logging(Path file, String level) {}

    /** {@code listen} is null when metrics are off. */
    public record Metrics(InetSocketAddress listen) {}
}
