package dev.logpipe.forwarder.config;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.forwarder.config.ForwarderConfig.EventTime;
import dev.logpipe.forwarder.config.ForwarderConfig.Filter;
import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.config.ForwarderConfig.Kubernetes;
import dev.logpipe.forwarder.config.ForwarderConfig.LineFormat;
import dev.logpipe.forwarder.config.ForwarderConfig.Logging;
import dev.logpipe.forwarder.config.ForwarderConfig.Metrics;
import dev.logpipe.forwarder.config.ForwarderConfig.Multiline;
import dev.logpipe.forwarder.config.ForwarderConfig.OnNoMatch;
import dev.logpipe.forwarder.config.ForwarderConfig.ParserType;
import dev.logpipe.forwarder.config.ForwarderConfig.Sink;
import dev.logpipe.forwarder.config.ForwarderConfig.SinkType;
import dev.logpipe.forwarder.config.ForwarderConfig.Source;
import dev.logpipe.forwarder.config.ForwarderConfig.State;
import dev.logpipe.forwarder.config.ForwarderConfig.Transform;
import dev.logpipe.forwarder.config.ForwarderConfig.Watch;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Parses and validates the forwarder's YAML configuration. Relative paths resolve against the given
 * base directory (the working directory). Any unknown key or invalid value is a {@link ConfigException}
 * whose message starts with the key path.
 */
public final class ConfigLoader {
    public static final Path DEFAULT_STATE_PATH = Path.of(".log-forwarder", "watermarks.json");
    private static final Set<String> LEVELS = Set.of("trace", "debug", "info", "warn", "error");

    private final Path baseDir;

    public ConfigLoader(Path baseDir) {
        this.baseDir = baseDir.toAbsolutePath().normalize();
    }

    public ForwarderConfig load(Path file) throws ConfigException {
        return parse(ConfigNode.readFile(file), file.toAbsolutePath().toString());
    }

    /** The configuration used when no file is given: defaults everywhere, no sources, stdout sink. */
    public ForwarderConfig defaults() throws ConfigException {
        return parse("{}", "defaults");
    }

    public ForwarderConfig parse(String yaml, String origin) throws ConfigException {
        ConfigNode root = ConfigNode.fromYaml(yaml, origin);
        String host = root.string("host", defaultHost());
        Watch watch = watch(root.child("watch"));
        ForwarderConfig.Parser parser = parser(root.child("parser"));
        Filter filter = filter(root.child("filter"));
        Transform transform = transform(root.child("transform"), parser, watch.sources());
        Sink sink = new SinkSection(baseDir).read(root.child("sink"));
        Logging logging = logging(root.child("logging"));
        Metrics metrics = metrics(root.child("metrics"));
        root.rejectUnknownKeys();

        for (String suffix : new String[] {"", ".tmp", ".lock", ".published"}) {
            Path state = watch.state().path();
            rejectInsideSources(
                    watch.sources(),
                    state.resolveSibling(state.getFileName() + suffix),
                    "watch.state.path",
                    "the watermark file" + (suffix.isEmpty() ? "" : " (or its " + suffix + " companion)")
                            + " would be tailed as log input");
        }
        if (logging.file() != null) {
            rejectInsideSources(
                    watch.sources(), logging.file(), "logging.file", "the forwarder would tail its own log");
        }
        if (sink.type() == SinkType.FILE) {
            rejectInsideSources(
                    watch.sources(), sink.file().path(), "sink.file.path", "the forwarder would tail its own output");
        }
        if (sink.type() == SinkType.HTTP) {
            rejectInsideSources(
                    watch.sources(),
                    sink.http().deadLetterPath(),
                    "sink.http.dead_letter_path",
                    "the forwarder would tail its own dead letters");
        }
        return new ForwarderConfig(host, watch, parser, filter, transform, sink, logging, metrics);
    }

    private Watch watch(ConfigNode n) throws ConfigException {
        Duration poll = n.duration("poll", Duration.ofMillis(250), Duration.ofMillis(10));
        Duration scan = n.duration("scan_interval", Duration.ofSeconds(1), Duration.ofMillis(10));
        Duration rotateWait = n.duration("rotate_wait", Duration.ofSeconds(5), Duration.ZERO);
        long readBuffer = n.bytes("read_buffer", 1024 * 1024, 4096, 64L * 1024 * 1024);
        // Off by default: on the 2-vCPU benchmark box the parse threads did not pay for their extra CPU per line
        // (docs/benchmarks.md, "Parse threads").
        int parseThreads = (int) n.integer("parse_threads", 0, 0, 16);
        ConfigNode s = n.child("state");
        State state = new State(
                s.path("path", baseDir, baseDir.resolve(DEFAULT_STATE_PATH)),
                s.duration("flush_interval", Duration.ofSeconds(1), Duration.ZERO),
                s.integer("flush_every", 0, 0, Long.MAX_VALUE),
                s.bool("reset_on_corrupt", false));
        s.rejectUnknownKeys();

        List<Source> sources = new ArrayList<>();
        for (ConfigNode src : n.children("sources")) {
            sources.add(source(src));
        }
        List<String> shorthand = n.strings("paths");
        for (int i = 0; i < shorthand.size(); i++) {
            sources.add(shorthandSource(shorthand.get(i), "watch.paths[" + i + "]"));
        }
        n.rejectUnknownKeys();
        return new Watch(poll, scan, rotateWait, readBuffer, parseThreads, state, sources);
    }

    private Source source(ConfigNode src) throws ConfigException {
        Path path = src.path("path", baseDir, null);
        if (path == null) {
            throw new ConfigException(src.keyPath("path") + ": is required");
        }
        List<String> patterns = src.strings("patterns");
        String service = src.string("service", null);
        ConfigNode parserNode = src.child("parser"); // read even when null: an explicit null means the top-level parser
        ForwarderConfig.Parser parser = src.has("parser") ? parser(parserNode) : null;
        src.rejectUnknownKeys();
        if (patterns.isEmpty()) {
            if (Files.isDirectory(path)) {
                patterns = List.of("*");
            } else {
                return new Source(
                        path.getParent(), List.of(escapeGlob(path.getFileName().toString())), service, parser);
            }
        }
        for (int i = 0; i < patterns.size(); i++) {
            String p = patterns.get(i);
            if (p.isBlank() || p.contains("/")) {
                throw new ConfigException(src.keyPath("patterns") + "[" + i
                        + "]: must be a file-name glob without '/', was \"" + p + "\"");
            }
            try {
                path.getFileSystem().getPathMatcher("glob:" + p);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(
                        src.keyPath("patterns") + "[" + i + "]: invalid glob \"" + p + "\": " + e.getMessage());
            }
        }
        return new Source(path, patterns, service, parser);
    }

    private Source shorthandSource(String text, String key) throws ConfigException {
        if (text.isBlank()) {
            throw new ConfigException(key + ": must not be empty");
        }
        Path p = baseDir.resolve(text).toAbsolutePath().normalize();
        String name = p.getFileName() == null ? "" : p.getFileName().toString();
        if (name.chars().anyMatch(c -> "*?[{".indexOf(c) >= 0)) {
            try {
                p.getFileSystem().getPathMatcher("glob:" + name);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(key + ": invalid glob \"" + name + "\": " + e.getMessage());
            }
            return new Source(p.getParent(), List.of(name), null);
        }
        if (Files.isDirectory(p)) {
            return new Source(p, List.of("*"), null);
        }
        return new Source(p.getParent(), List.of(escapeGlob(name)), null);
    }

    private ForwarderConfig.Parser parser(ConfigNode n) throws ConfigException {
        ParserType type = n.choice("type", ParserType.class, ParserType.LINE);
        Duration flush = n.duration("flush_interval", Duration.ofMillis(100), Duration.ZERO);
        long maxRecord = n.bytes("max_record_bytes", 256 * 1024, 1024, 16L * 1024 * 1024);
        LineFormat format = n.choice("format", LineFormat.class, LineFormat.TEXT);
        LineFormat content = n.choice("content", LineFormat.class, null);
        ConfigNode m = n.child("multiline");
        String header = m.string("header_pattern", null);
        long maxLines = m.integer("max_lines", 1000, 1, 1_000_000);
        m.rejectUnknownKeys();
        KeyMapping keys = keys(n.child("keys"));
        ConfigNode k = n.child("kubernetes");
        boolean container = format == LineFormat.CRI || format == LineFormat.DOCKER;
        boolean k8s = k.bool("enabled", container);
        String k8sService = k.string("service", "{container}");
        k.rejectUnknownKeys();
        n.rejectUnknownKeys();
        if (type == ParserType.MULTILINE) {
            if (header == null || header.isEmpty()) {
                throw new ConfigException(
                        m.keyPath("header_pattern") + ": is required when " + n.keyPath("type") + " is multiline");
            }
            compile(header, m.keyPath("header_pattern"));
        } else if (header != null) {
            throw new ConfigException(m.keyPath("header_pattern") + ": is set but " + n.keyPath("type") + " is line; "
                    + "set " + n.keyPath("type") + ": multiline or remove it");
        }
        if (content != null && !container) {
            throw new ConfigException(
                    n.keyPath("content") + ": is only for " + n.keyPath("format") + " cri or docker (what "
                            + "the application wrote inside the runtime's lines); " + n.keyPath("format") + " is "
                            + format.name().toLowerCase(Locale.ROOT));
        }
        if (content == LineFormat.CRI || content == LineFormat.DOCKER) {
            throw new ConfigException(n.keyPath("content") + ": must be one of text, json, logfmt, was \""
                    + content.name().toLowerCase(Locale.ROOT) + "\"");
        }
        if (!container) {
            content = format;
        } else if (content == null) {
            content = LineFormat.TEXT;
        }
        String service = k8sService.isBlank() ? null : k8sService;
        if (service != null) {
            String rest =
                    service.replace("{pod}", "").replace("{namespace}", "").replace("{container}", "");
            if (rest.contains("{") || rest.contains("}")) {
                throw new ConfigException(k.keyPath("service") + ": the template may use {pod}, {namespace} and "
                        + "{container}, was \"" + k8sService + "\"");
            }
        }
        return new ForwarderConfig.Parser(
                type,
                flush,
                (int) maxRecord,
                type == ParserType.MULTILINE ? new Multiline(header, (int) maxLines) : null,
                format,
                content,
                keys,
                new Kubernetes(k8s, service));
    }

    private KeyMapping keys(ConfigNode n) throws ConfigException {
        KeyMapping d = KeyMapping.DEFAULT;
        KeyMapping keys = new KeyMapping(
                keyList(n, "message", d.message()),
                keyList(n, "level", d.level()),
                keyList(n, "time", d.time()),
                keyList(n, "trace_id", d.traceId()),
                keyList(n, "span_id", d.spanId()),
                keyList(n, "service", d.service()),
                keyList(n, "region", d.region()));
        n.rejectUnknownKeys();
        return keys;
    }

    private static List<String> keyList(ConfigNode n, String key, List<String> fallback) throws ConfigException {
        if (!n.has(key)) {
            n.strings(key);
            return fallback;
        }
        List<String> names = n.strings(key);
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).isBlank()) {
                throw new ConfigException(n.keyPath(key) + "[" + i + "]: must not be empty");
            }
        }
        return names;
    }

    private Filter filter(ConfigNode n) throws ConfigException {
        List<String> include = n.strings("include");
        List<String> exclude = n.strings("exclude");
        n.rejectUnknownKeys();
        for (int i = 0; i < include.size(); i++) {
            compile(include.get(i), "filter.include[" + i + "]");
        }
        for (int i = 0; i < exclude.size(); i++) {
            compile(exclude.get(i), "filter.exclude[" + i + "]");
        }
        return new Filter(include, exclude);
    }

    private Transform transform(ConfigNode n, ForwarderConfig.Parser parser, List<Source> sources)
            throws ConfigException {
        Map<String, String> add = n.stringMap("add_fields");
        Map<String, String> rename = n.stringMap("rename_fields");
        ConfigNode extract = n.child("extract");
        String pattern = extract.string("pattern", null);
        OnNoMatch onNoMatch = extract.choice("on_no_match", OnNoMatch.class, OnNoMatch.KEEP);
        extract.rejectUnknownKeys();
        EventTime eventTime = EventTimeSection.read(n.child("event_time"));
        n.rejectUnknownKeys();
        for (String name : add.keySet()) {
            rejectReserved(name, "transform.add_fields." + name);
        }
        for (Map.Entry<String, String> e : rename.entrySet()) {
            rejectReserved(e.getValue(), "transform.rename_fields." + e.getKey());
        }
        Set<String> groups = Set.of();
        if (pattern != null) {
            Pattern p = compile(pattern, "transform.extract.pattern");
            if (p.namedGroups().isEmpty()) {
                throw new ConfigException("transform.extract.pattern: must have at least one named group "
                        + "like (?P<level>\\w+), was \"" + pattern + "\"");
            }
            groups = p.namedGroups().keySet();
        }
        boolean anyStructured = parser.structured()
                || sources.stream()
                        .anyMatch(src -> src.parser() != null && src.parser().structured());
        if (eventTime.field() != null && !groups.contains(eventTime.field()) && !anyStructured) {
            throw new ConfigException("transform.event_time.field: \"" + eventTime.field() + "\" is neither a named "
                    + "group of transform.extract.pattern nor a key of a json or logfmt line (parser.format"
                    + (parser.container() ? "/parser.content" : "") + " is "
                    + parser.content().name().toLowerCase(Locale.ROOT) + ")");
        }
        return new Transform(add, rename, pattern, onNoMatch, eventTime);
    }

    private Logging logging(ConfigNode n) throws ConfigException {
        Path file = n.path("file", baseDir, null);
        String level = n.string("level", "info").toLowerCase(Locale.ROOT);
        n.rejectUnknownKeys();
        if (!LEVELS.contains(level)) {
            throw new ConfigException(
                    "logging.level: must be one of trace, debug, info, warn, error, was \"" + level + "\"");
        }
        return new Logging(file, level);
    }

    private Metrics metrics(ConfigNode n) throws ConfigException {
        String listen = n.string("listen", null);
        n.rejectUnknownKeys();
        if (listen == null) {
            return new Metrics(null);
        }
        return new Metrics(ConfigNode.parseAddress("metrics.listen", listen));
    }

    private static void rejectReserved(String field, String key) throws ConfigException {
        if (ForwarderConfig.RESERVED_FIELDS.contains(field)) {
            throw new ConfigException(
                    key + ": field \"" + field + "\" is written by the forwarder itself; choose " + "another name");
        }
    }

    private static Pattern compile(String regex, String key) throws ConfigException {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new ConfigException(key + ": invalid regular expression (RE2 syntax): " + e.getMessage());
        }
    }

    private static void rejectInsideSources(List<Source> sources, Path file, String key, String why)
            throws ConfigException {
        Path parent = file.getParent();
        for (Source s : sources) {
            if (!s.directory().equals(parent)) {
                continue;
            }
            for (String pattern : s.patterns()) {
                if (file.getFileSystem().getPathMatcher("glob:" + pattern).matches(file.getFileName())) {
                    throw new ConfigException(key + ": " + file + " is inside watched source " + s.directory()
                            + " (pattern \"" + pattern + "\"); " + why + ". Move it outside the watched directories.");
                }
            }
        }
    }

    private static String escapeGlob(String name) {
        StringBuilder b = new StringBuilder();
        for (char c : name.toCharArray()) {
            if ("*?[]{}\\".indexOf(c) >= 0) {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    private static String defaultHost() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
