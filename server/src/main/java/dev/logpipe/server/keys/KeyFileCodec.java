package dev.logpipe.server.keys;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code keys.json} to and from {@link KeyFile}; anything malformed is an {@link IOException} naming the file. */
final class KeyFileCodec {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int VERSION = 1;

    private KeyFileCodec() {}

    static byte[] encode(KeyFile f) {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", VERSION);
        ObjectNode tenants = root.putObject("tenants");
        for (KeyFile.Tenant t : f.tenants().values()) {
            ObjectNode o = tenants.putObject(t.id());
            o.put("created", t.created().toString());
            o.put("records_per_second", t.recordsPerSecond());
            o.put("bytes_per_second", t.bytesPerSecond());
        }
        ArrayNode keys = root.putArray("keys");
        for (KeyFile.StoredKey k : f.keys()) {
            ObjectNode o = keys.addObject();
            o.put("id", k.id());
            if (k.tenant() == null) {
                o.put("role", "admin");
            } else {
                o.put("tenant", k.tenant());
            }
            o.put("sha256", k.sha256());
            o.put("created", k.created().toString());
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        } catch (IOException e) {
            throw new AssertionError("a tree of strings and numbers always encodes", e);
        }
    }

    static KeyFile decode(byte[] bytes, Path file) throws IOException {
        try {
            JsonNode root = JSON.readTree(bytes);
            if (root == null || !root.isObject()) {
                throw new IllegalArgumentException("not a JSON object");
            }
            if (root.path("version").asInt(-1) != VERSION) {
                throw new IllegalArgumentException("version must be " + VERSION + ", was " + root.path("version"));
            }
            Map<String, KeyFile.Tenant> tenants = new HashMap<>();
            var it = root.path("tenants").fields();
            while (it.hasNext()) {
                var e = it.next();
                JsonNode t = e.getValue();
                tenants.put(
                        e.getKey(),
                        new KeyFile.Tenant(
                                e.getKey(),
                                Instant.parse(text(t, "created")),
                                t.path("records_per_second").asLong(0),
                                t.path("bytes_per_second").asLong(0)));
            }
            List<KeyFile.StoredKey> keys = new ArrayList<>();
            Set<String> ids = new HashSet<>();
            for (JsonNode k : root.path("keys")) {
                String tenant = k.hasNonNull("tenant") ? k.get("tenant").asText() : null;
                if (tenant == null && !"admin".equals(k.path("role").asText())) {
                    throw new IllegalArgumentException("key " + k.path("id") + " has neither a tenant nor role admin");
                }
                if (tenant != null && !tenants.containsKey(tenant)) {
                    throw new IllegalArgumentException("key " + k.path("id") + " names unknown tenant " + tenant);
                }
                KeyFile.StoredKey key = new KeyFile.StoredKey(
                        text(k, "id"), tenant, text(k, "sha256"), Instant.parse(text(k, "created")));
                if (!ids.add(key.id())) {
                    throw new IllegalArgumentException("key id " + key.id() + " appears twice");
                }
                keys.add(key);
            }
            return new KeyFile(tenants, keys);
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    "key file " + file + " is corrupt (" + e.getMessage() + "); restore it from a "
                            + "backup, or move it aside to start with new keys",
                    e);
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("missing string field " + field);
        }
        return v.asText();
    }
}
