package dev.logpipe.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A read cursor over one YAML mapping that remembers its key path and which keys were read, so that
 * every error names the full key ({@code watch.state.flush_interval: ...}) and unknown keys are rejected.
 */
public final class ConfigNode {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");
    private static final Pattern BYTES = Pattern.compile("(\\d+)\\s*(b|kib|kb|k|mib|mb|m|gib|gb|g)?");

    /** No interval needs more; capping it keeps nanosecond arithmetic far from overflow. */
    public static final Duration MAX_DURATION = Duration.ofHours(24);

    private final String path;
    private final JsonNode node;
    private final Set<String> read = new HashSet<>();

    private ConfigNode(String path, JsonNode node) {
        this.path = path;
        this.node = node;
    }

    public static ConfigNode root(JsonNode node) throws ConfigException {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return new ConfigNode("", JsonNodeFactory.instance.objectNode());
        }
        if (!node.isObject()) {
            throw new ConfigException("config: the top level must be a mapping of keys, was " + kind(node));
        }
        return new ConfigNode("", node);
    }

    /** The text of a configuration file; a missing or unreadable file is a {@link ConfigException} naming it. */
    public static String readFile(Path file) throws ConfigException {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config file " + file.toAbsolutePath() + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("config file " + file.toAbsolutePath() + " cannot be read: " + e, e);
        }
    }

    /** Parses YAML (duplicate keys are an error) into the root node; {@code origin} names the source in errors. */
    public static ConfigNode fromYaml(String yaml, String origin) throws ConfigException {
        JsonNode tree;
        try {
            ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
            mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            tree = mapper.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new ConfigException(
                    "config " + origin + " is not valid YAML: " + e.getOriginalMessage()
                            + (e.getLocation() == null
                                    ? ""
                                    : " (line " + e.getLocation().getLineNr() + ")"),
                    e);
        }
        return root(tree);
    }

    /** {@code host:port} (IPv6 in brackets) as a socket address; errors name {@code keyPath}. */
    public static InetSocketAddress parseAddress(String keyPath, String listen) throws ConfigException {
        int colon = listen.lastIndexOf(':');
        if (colon <= 0 || colon == listen.length() - 1) {
            throw new ConfigException(keyPath + ": must be host:port like 127.0.0.1:9100, was \"" + listen + "\"");
        }
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(keyPath + ": port must be a number, was \"" + listen + "\"");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException(keyPath + ": port must be between 0 and 65535, was " + port);
        }
        String host = listen.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, port);
    }

    public String keyPath(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    public boolean has(String key) {
        JsonNode v = node.get(key);
        return v != null && !v.isNull();
    }

    /** A nested mapping; an absent key gives an empty mapping so defaults apply. */
    public ConfigNode child(String key) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return new ConfigNode(keyPath(key), JsonNodeFactory.instance.objectNode());
        }
        if (!v.isObject()) {
            throw new ConfigException(keyPath(key) + ": must be a mapping, was " + kind(v));
        }
        return new ConfigNode(keyPath(key), v);
    }

    public List<ConfigNode> children(String key) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        List<ConfigNode> out = new ArrayList<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (!v.isArray()) {
            throw new ConfigException(keyPath(key) + ": must be a list, was " + kind(v));
        }
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            String itemPath = keyPath(key) + "[" + i + "]";
            if (!item.isObject()) {
                throw new ConfigException(itemPath + ": must be a mapping, was " + kind(item));
            }
            out.add(new ConfigNode(itemPath, item));
        }
        return out;
    }

    public String string(String key, String fallback) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isTextual() && !v.isNumber()) {
            throw new ConfigException(keyPath(key) + ": must be a string, was " + kind(v));
        }
        return v.asText();
    }

    /**
     * A secret given inline ({@code key}) or, better, as the name of an environment variable ({@code key_env}); null
     * when neither is given. Both given, or a named variable that is not set, fail naming the key.
     */
    public String secret(String key, java.util.function.UnaryOperator<String> env) throws ConfigException {
        String inline = string(key, null);
        String variable = string(key + "_env", null);
        if (inline != null && variable != null) {
            throw new ConfigException(keyPath(key + "_env") + ": give " + key + " or " + key + "_env, not both");
        }
        if (variable == null) {
            return inline;
        }
        String value = env.apply(variable);
        if (value == null || value.isEmpty()) {
            throw new ConfigException(keyPath(key + "_env") + ": the environment variable " + variable + " is not set");
        }
        return value;
    }

    public String requiredString(String key) throws ConfigException {
        String s = string(key, null);
        if (s == null || s.isBlank()) {
            throw new ConfigException(keyPath(key) + ": is required");
        }
        return s;
    }

    public List<String> strings(String key) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        List<String> out = new ArrayList<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (v.isTextual()) {
            out.add(v.textValue());
            return out;
        }
        if (!v.isArray()) {
            throw new ConfigException(keyPath(key) + ": must be a list of strings, was " + kind(v));
        }
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            if (!item.isTextual()) {
                throw new ConfigException(keyPath(key) + "[" + i + "]: must be a string, was " + kind(item));
            }
            out.add(item.textValue());
        }
        return out;
    }

    public Map<String, String> stringMap(String key) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (!v.isObject()) {
            throw new ConfigException(keyPath(key) + ": must be a mapping of names to strings, was " + kind(v));
        }
        Iterator<Map.Entry<String, JsonNode>> it = v.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                throw new ConfigException(
                        keyPath(key) + "." + e.getKey() + ": must be a string, was " + kind(e.getValue()));
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    public boolean bool(String key, boolean fallback) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isBoolean()) {
            throw new ConfigException(keyPath(key) + ": must be true or false, was " + describe(v));
        }
        return v.booleanValue();
    }

    public long integer(String key, long fallback, long min, long max) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new ConfigException(keyPath(key) + ": must be a whole number, was " + describe(v));
        }
        long n = v.longValue();
        if (n < min || n > max) {
            throw new ConfigException(keyPath(key) + ": must be between " + min + " and " + max + ", was " + n);
        }
        return n;
    }

    /** A duration such as {@code 250ms}, {@code 1s}, {@code 5m}, {@code 1h} or {@code 0}. */
    public Duration duration(String key, Duration fallback, Duration min) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        String text = v.asText().trim();
        Duration d = parseDuration(text);
        if (d == null || !v.isValueNode()) {
            throw new ConfigException(
                    keyPath(key) + ": must be a duration like 250ms, 1s, 5m or 0, was \"" + v.asText() + "\"");
        }
        if (d.compareTo(min) < 0) {
            throw new ConfigException(keyPath(key) + ": must be >= " + format(min) + ", was " + text);
        }
        if (d.compareTo(MAX_DURATION) > 0) {
            throw new ConfigException(keyPath(key) + ": must be <= 24h, was " + text);
        }
        return d;
    }

    /** A byte size such as {@code 65536}, {@code 64KiB} or {@code 1MiB}. */
    public long bytes(String key, long fallback, long min, long max) throws ConfigException {
        read.add(key);
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        Matcher m = BYTES.matcher(v.asText().trim().toLowerCase(Locale.ROOT));
        if (!v.isValueNode() || !m.matches()) {
            throw new ConfigException(
                    keyPath(key) + ": must be a size like 65536, 64KiB or 1MiB, was \"" + v.asText() + "\"");
        }
        String unit = m.group(2) == null ? "b" : m.group(2);
        long factor = switch (unit) {
            case "b" -> 1;
            case "kib", "kb", "k" -> 1024;
            case "mib", "mb", "m" -> 1024 * 1024;
            default -> 1024L * 1024 * 1024;
        };
        long value;
        try {
            value = Math.multiplyExact(Long.parseLong(m.group(1)), factor);
        } catch (ArithmeticException | NumberFormatException e) {
            value = Long.MAX_VALUE;
        }
        if (value < min || value > max) {
            throw new ConfigException(
                    keyPath(key) + ": must be between " + min + " and " + max + " bytes, was " + v.asText());
        }
        return value;
    }

    public Path path(String key, Path base, Path fallback) throws ConfigException {
        String s = string(key, null);
        if (s == null) {
            return fallback;
        }
        if (s.isBlank()) {
            throw new ConfigException(keyPath(key) + ": must not be empty");
        }
        try {
            return base.resolve(s).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new ConfigException(keyPath(key) + ": is not a valid path: " + e.getMessage());
        }
    }

    public <E extends Enum<E>> E choice(String key, Class<E> type, E fallback) throws ConfigException {
        String s = string(key, null);
        if (s == null) {
            return fallback;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(s.trim())) {
                return e;
            }
        }
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            names.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw new ConfigException(
                keyPath(key) + ": must be one of " + String.join(", ", names) + ", was \"" + s + "\"");
    }

    /** Fails on the first key in this mapping that no reader asked for. */
    public void rejectUnknownKeys() throws ConfigException {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!read.contains(name)) {
                throw new ConfigException(keyPath(name) + ": unknown key");
            }
        }
    }

    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            return null;
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            return null;
        }
        String unit = m.group(2);
        if (unit == null) {
            return n == 0 ? Duration.ZERO : null;
        }
        try {
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } catch (ArithmeticException e) {
            return null;
        }
    }

    public static String format(Duration d) {
        if (d.isZero()) {
            return "0";
        }
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        return d.toSeconds() + "s";
    }

    private static String kind(JsonNode v) {
        return v.getNodeType().name().toLowerCase(Locale.ROOT);
    }

    private static String describe(JsonNode v) {
        return v.isTextual() ? "\"" + v.textValue() + "\"" : v.toString();
    }
}
