package dev.logpipe.server.standalone;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.query.config.QueryConfigLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the optional standalone config file and turns it, with the command-line flags, into each role's validated
 * configuration. Every error names its key path ({@code indexer.commit.interval: ...}); a key the standalone sets
 * itself (listen addresses, bootstrap servers, data directories) is refused with the flag to use instead.
 */
public final class StandaloneConfigLoader {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TOP =
            Set.of("listen", "data_dir", "warm_up", "broker", "auth", "collector", "indexer", "query");
    /** The default warm-up before ready (docs/standalone.md#warm-up-before-ready) and the longest one allowed. */
    static final Duration WARM_UP = Duration.ofSeconds(3);

    static final Duration MAX_WARM_UP = Duration.ofSeconds(10);

    /** Flags given on the command line; null fields were not given. */
    public record Flags(Path data, Integer port, Integer brokerPort, boolean demo) {}

    public StandaloneConfig load(Path file, Flags flags) throws ConfigException {
        ObjectNode root = file == null ? JSON.createObjectNode() : read(file);
        for (var it = root.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!TOP.contains(k)) {
                throw new ConfigException(k
                        + ": unknown key (expected one of listen, data_dir, warm_up, broker, auth, collector, indexer, "
                        + "query)");
            }
        }
        String origin = file == null ? "(defaults)" : file.toAbsolutePath().toString();
        ConfigNode node = ConfigNode.fromYaml(
                root.deepCopy()
                        .without(List.of("collector", "indexer", "query"))
                        .toString(),
                origin);
        var listen = ConfigNode.parseAddress("listen", node.string("listen", "127.0.0.1:7070"));
        Path base = file == null
                ? Path.of("").toAbsolutePath()
                : file.toAbsolutePath().getParent();
        Path data = flags.data() != null
                ? flags.data().toAbsolutePath()
                : node.path("data_dir", base, Path.of("data").toAbsolutePath());
        Duration warmUp = node.duration("warm_up", WARM_UP, Duration.ZERO);
        if (warmUp.compareTo(MAX_WARM_UP) > 0) {
            throw new ConfigException("warm_up: must be <= " + ConfigNode.format(MAX_WARM_UP) + " (ready is due "
                    + "within 15 s), was " + ConfigNode.format(warmUp));
        }
        ConfigNode b = node.child("broker");
        int brokerPort = (int) b.integer("port", 9092, 0, 65535);
        int controllerPort = (int) b.integer("controller_port", 0, 0, 65535);
        b.rejectUnknownKeys();
        AuthFailures.Policy auth = AuthFailures.Policy.read(node.child("auth"));
        node.rejectUnknownKeys();
        int port = flags.port() != null ? flags.port() : listen.getPort();
        if (port < 0 || port > 65535) {
            throw new ConfigException("--port: must be 0-65535, was " + port);
        }
        if (flags.brokerPort() != null) {
            brokerPort = flags.brokerPort();
        }
        StandaloneConfig c = new StandaloneConfig(
                listen.getHostString(),
                port,
                data,
                brokerPort,
                controllerPort,
                flags.demo(),
                warmUp,
                section(root, "collector"),
                section(root, "indexer"),
                section(root, "query"),
                auth);
        for (String role : List.of("collector", "indexer", "query")) {
            ObjectNode sec =
                    role.equals("collector") ? c.collector() : role.equals("indexer") ? c.indexer() : c.query();
            if (sec.has("auth")) {
                throw new ConfigException(role + ".auth: the standalone's one port has one limit on failed "
                        + "authentications; set it at the top level (auth:)");
            }
        }
        refuseOwned(c.collector(), "collector", "listen", "--port");
        if (c.collector().get("kafka") instanceof ObjectNode k) {
            refuseOwned(k, "collector.kafka", "bootstrap_servers", "--broker-port");
        }
        if (c.indexer().get("kafka") instanceof ObjectNode k) {
            refuseOwned(k, "indexer.kafka", "bootstrap_servers", "--broker-port");
        }
        refuseOwned(c.indexer(), "indexer", "listen", "--port");
        refuseOwned(c.query(), "query", "listen", "--port");
        refuseOwned(c.query(), "query", "data_dir", "--data");
        if (c.query().has("tenants")) {
            throw new ConfigException("query.tenants: tenants and keys come from DATA/keys.json (logpipe keys); set "
                    + "query.limits.max_window and max_concurrent_queries for all tenants");
        }
        refuseOwned(c.indexer(), "indexer", "data_dir", "--data");
        for (String role : List.of("indexer", "query")) {
            ObjectNode section = role.equals("indexer") ? c.indexer() : c.query();
            if (section.has("store") || section.has("opensearch")) {
                throw new ConfigException(role + "." + (section.has("store") ? "store" : "opensearch")
                        + ": logpipe standalone indexes into its own Lucene shards under --data; for an OpenSearch "
                        + "cluster run logpipe indexer and logpipe query with store: opensearch "
                        + "(docs/deployment.md#opensearch)");
            }
        }
        if (c.collector().has("syslog")) {
            throw new ConfigException("collector.syslog: syslog listeners are not served by logpipe standalone (its "
                    + "tenants come from DATA/keys.json); run logpipe collector with them");
        }
        return c;
    }

    /** The collector's configuration for a broker at {@code bootstrap}; tenants come from the key file. */
    public static CollectorConfig collector(StandaloneConfig c, String bootstrap, List<CollectorConfig.Tenant> tenants)
            throws ConfigException {
        ObjectNode d = JSON.createObjectNode();
        d.put("listen", "127.0.0.1:0");
        ObjectNode k = d.putObject("kafka");
        k.put("bootstrap_servers", bootstrap);
        k.put("partitions", 3);
        k.put("replication_factor", 1);
        k.put("min_insync_replicas", 1);
        merge(d, c.collector());
        CollectorConfig parsed = prefixed(
                "collector", () -> new CollectorConfigLoader().parse(d.toString(), "standalone collector section"));
        return new CollectorConfig(
                parsed.listen(), parsed.tls(), parsed.limits(), tenants, parsed.kafka(), parsed.redaction());
    }

    /** The indexer's configuration: shards under {@code data/index}, the admin keys given. */
    public static IndexerConfig indexer(StandaloneConfig c, String bootstrap, List<String> adminHashes)
            throws ConfigException {
        ObjectNode d = JSON.createObjectNode();
        d.put("listen", "127.0.0.1:0");
        d.put("data_dir", c.indexDir().toString());
        ObjectNode k = d.putObject("kafka");
        k.put("bootstrap_servers", bootstrap);
        k.put("group_id", "logpipe-standalone");
        k.putObject("properties").put("group.instance.id", "logpipe-standalone-indexer");
        d.putObject("index").put("ram_buffer", "32MiB");
        d.putObject("commit").put("interval", "2s");
        ObjectNode archive = d.putObject("archive"); // DATA/archive/, beside DATA/index/ (docs/archive.md)
        archive.put("directory", c.dataDir().resolve("archive").toString());
        archive.put("catalog", c.dataDir().resolve("archive-catalog.json").toString());
        archive.put("work_dir", c.dataDir().resolve("archive-work").toString());
        archive.put("cache_dir", c.dataDir().resolve("archive-cache").toString());
        merge(d, c.indexer());
        d.putObject("admin")
                .putArray("api_key_sha256")
                .addAll(adminHashes.stream()
                        .map(JSON.getNodeFactory()::textNode)
                        .toList());
        return prefixed(
                "indexer",
                () -> new IndexerConfigLoader().parse(d.toString(), c.indexDir().toString()));
    }

    /** The query service's configuration (tenants left out) and the policy every tenant gets. */
    public record Query(QueryConfig config, QueryConfig.Tenant defaults) {}

    public static Query query(StandaloneConfig c) throws ConfigException {
        ObjectNode d = JSON.createObjectNode();
        d.put("listen", "127.0.0.1:0");
        d.put("data_dir", c.indexDir().toString());
        ObjectNode cursor = d.putObject("cursor");
        cursor.put("secret_file", c.dataDir().resolve("query-cursor.key").toString());
        d.putObject("audit")
                .put(
                        "path",
                        c.dataDir()
                                .resolve("audit")
                                .resolve("query-audit.jsonl")
                                .toString());
        merge(d, c.query());
        // a probe tenant reads the tenant defaults (max_window, max_concurrent_queries) the loader derives
        ObjectNode probe = d.putArray("tenants").addObject();
        probe.put("id", "probe");
        probe.putArray("api_key_sha256").add("0".repeat(64));
        QueryConfig parsed = prefixed(
                "query",
                () -> QueryConfigLoader.withTenantsFromKeyFile()
                        .parse(
                                d.toString(),
                                c.dataDir().resolve("standalone.yaml").toString()));
        return new Query(
                new QueryConfig(
                        parsed.listen(),
                        parsed.dataDir(),
                        parsed.reopenInterval(),
                        List.of(),
                        parsed.limits(),
                        parsed.cursorSecretFile(),
                        parsed.audit(),
                        parsed.auth(),
                        parsed.opensearch(),
                        parsed.alerting(),
                        Optional.empty(),
                        List.of(), // admin keys are the key file's
                        parsed.scrapeKeyHashes()),
                parsed.tenant("probe"));
    }

    interface Parse<T> {
        T get() throws ConfigException;
    }

    static <T> T prefixed(String section, Parse<T> p) throws ConfigException {
        try {
            return p.get();
        } catch (ConfigException e) {
            throw new ConfigException(section + "." + e.getMessage());
        }
    }

    /** Lays {@code over} onto {@code base}: objects merge key by key, anything else replaces. */
    static void merge(ObjectNode base, JsonNode over) {
        for (var it = over.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode mine = base.get(e.getKey());
            if (mine instanceof ObjectNode o && e.getValue().isObject()) {
                merge(o, e.getValue());
            } else {
                base.set(e.getKey(), e.getValue().deepCopy());
            }
        }
    }

    private static void refuseOwned(ObjectNode section, String path, String key, String flag) throws ConfigException {
        if (section.has(key)) {
            throw new ConfigException(path + "." + key + ": is set by logpipe standalone; use " + flag);
        }
    }

    private static ObjectNode section(ObjectNode root, String name) throws ConfigException {
        JsonNode n = root.get(name);
        if (n == null || n.isNull()) {
            return JSON.createObjectNode();
        }
        if (!n.isObject()) {
            throw new ConfigException(
                    name + ": must be a mapping, was " + n.getNodeType().name().toLowerCase());
        }
        return (ObjectNode) n;
    }

    private static ObjectNode read(Path file) throws ConfigException {
        String text = ConfigNode.readFile(file);
        try {
            JsonNode n = new YAMLMapper().readTree(text);
            if (n == null || n.isNull() || n.isMissingNode()) {
                return JSON.createObjectNode();
            }
            if (!n.isObject()) {
                throw new ConfigException(file + ": must be a YAML mapping");
            }
            return (ObjectNode) n;
        } catch (IOException e) {
            throw new ConfigException(file + ": not valid YAML: " + e.getMessage());
        }
    }
}
