package dev.logpipe.forwarder.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A forwarder configuration under construction, addressed by the same dotted key paths the forwarder's
 * error messages use ({@code watch.state.flush_interval}). Written as YAML for the child process.
 */
final class ForwarderConfigYaml {
    private static final YAMLMapper YAML = new YAMLMapper();

    private final Map<String, Object> root = new LinkedHashMap<>();

    /** Sets {@code key} (dotted path) to a string, number, boolean, list or map. */
    ForwarderConfigYaml set(String key, Object value) {
        String[] parts = key.split("\\.");
        Map<String, Object> node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            node = child(node, parts[i]);
        }
        node.put(parts[parts.length - 1], value);
        return this;
    }

    /** Removes {@code key} (dotted path) if it is set. */
    ForwarderConfigYaml remove(String key) {
        String[] parts = key.split("\\.");
        Map<String, Object> node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            node = child(node, parts[i]);
        }
        node.remove(parts[parts.length - 1]);
        return this;
    }

    /** Replaces the sources with one directory source with these file-name patterns. */
    ForwarderConfigYaml source(Path directory, String... patterns) {
        return set("watch.sources", List.of(Map.of("path", directory.toString(), "patterns", List.of(patterns))));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> child(Map<String, Object> node, String name) {
        Object v = node.computeIfAbsent(name, k -> new LinkedHashMap<String, Object>());
        if (!(v instanceof Map)) {
            throw new IllegalArgumentException(name + " is already set to a value, not a mapping: " + v);
        }
        return (Map<String, Object>) v;
    }

    String yaml() {
        try {
            return YAML.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    void writeTo(Path file) {
        try {
            Files.writeString(file, yaml());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
