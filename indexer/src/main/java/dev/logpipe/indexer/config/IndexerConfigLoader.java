package dev.logpipe.indexer.config;

import dev.logpipe.archive.config.ArchiveSettings;
import dev.logpipe.archive.config.ArchiveSettingsLoader;
import dev.logpipe.archive.tier.ArchivePolicy;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.index.opensearch.OpenSearchSettingsLoader;
import dev.logpipe.index.shard.TenantDirectory;
import dev.logpipe.index.store.lucene.StoreSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads and validates the indexer's YAML; every error names the key path. */
public final class IndexerConfigLoader {
    private static final Set<String> FIXED_CONSUMER_SETTINGS = Set.of(
            "bootstrap.servers",
            "group.id",
            "enable.auto.commit",
            "key.deserializer",
            "value.deserializer",
            "max.poll.records",
            "fetch.max.bytes",
            "isolation.level",
            "auto.offset.reset");

    /**
     * The highest cap on distinct field names per shard: each name costs the index writer and every segment a few
     * kilobytes of heap (docs/indexer.md#field-names), so a cap past this would not bound much.
     */
    static final int MAX_FIELD_NAMES = 100_000;

    public IndexerConfig load(Path file) throws ConfigException {
        return parse(ConfigNode.readFile(file), file.toAbsolutePath().toString());
    }

    public IndexerConfig parse(String yaml, String origin) throws ConfigException {
        ConfigNode root = ConfigNode.fromYaml(yaml, origin);
        Path base = origin.startsWith("/")
                ? Path.of(origin).getParent()
                : Path.of("").toAbsolutePath();
        var listen = ConfigNode.parseAddress("listen", root.string("listen", "127.0.0.1:9300"));
        Path data = root.path("data_dir", base, base.resolve("data"));
        IndexerConfig.Kafka kafka = kafka(root.child("kafka"));
        ConfigNode c = root.child("commit");
        IndexerConfig.Commit commit = new IndexerConfig.Commit(
                c.duration("interval", Duration.ofSeconds(5), Duration.ofMillis(10)),
                c.integer("max_records", 500_000, 1, 100_000_000));
        c.rejectUnknownKeys();
        ConfigNode r = root.child("refresh");
        Duration refresh = r.duration("interval", Duration.ofMillis(250), Duration.ofMillis(10));
        Duration behind = r.duration("behind_interval", max(refresh, Duration.ofSeconds(1)), refresh);
        r.rejectUnknownKeys();
        IndexerConfig.Index index = index(root.child("index"));
        IndexerConfig.Retention retention = retention(root.child("retention"));
        ConfigNode a = root.child("admin");
        List<String> hashes = a.strings("api_key_sha256");
        a.rejectUnknownKeys();
        for (int i = 0; i < hashes.size(); i++) {
            if (!hashes.get(i).matches("[0-9a-f]{64}")) {
                throw new ConfigException("admin.api_key_sha256[" + i + "]: must be 64 lower-case hex digits (the "
                        + "SHA-256 of the key, e.g. from `printf %s KEY | sha256sum`)");
            }
        }
        ConfigNode au = root.child("audit");
        Path audit = au.path("path", base, data.resolve("audit").resolve("indexer-audit.jsonl"));
        au.rejectUnknownKeys();
        AuthFailures.Policy auth = AuthFailures.Policy.read(root.child("auth"));
        Optional<OpenSearchSettings> opensearch = OpenSearchSettingsLoader.store(root);
        Optional<ArchiveSettings> archive = Optional.empty();
        if (opensearch.isPresent()) {
            if (root.has("archive")) {
                throw new ConfigException("archive: the archive tier moves days out of the Lucene store; with store: "
                        + "opensearch keep old days with OpenSearch's own index lifecycle and snapshots");
            }
        } else {
            archive = Optional.of(ArchiveSettingsLoader.read(root.child("archive"), base, data));
        }
        root.rejectUnknownKeys();
        return new IndexerConfig(
                listen,
                data,
                kafka,
                commit,
                refresh,
                behind,
                index,
                retention,
                new IndexerConfig.Admin(hashes),
                audit,
                auth,
                opensearch,
                archive);
    }

    private static IndexerConfig.Kafka kafka(ConfigNode k) throws ConfigException {
        String bootstrap = k.string("bootstrap_servers", null);
        String topic = k.string("topic", "logpipe.records");
        String deadLetter = k.string("dead_letter_topic", "logpipe.dead-letter");
        String group = k.string("group_id", "logpipe-indexer");
        int poll = (int) k.integer("max_poll_records", 5000, 1, 100_000);
        int fetch = (int) k.bytes("fetch_max_bytes", 32L * 1024 * 1024, 64 * 1024, 1024L * 1024 * 1024);
        Map<String, String> props = k.stringMap("properties");
        String defaultTenant = k.string("default_tenant", null);
        k.rejectUnknownKeys();
        if (defaultTenant != null && TenantDirectory.problem(defaultTenant) != null) {
            throw new ConfigException("kafka.default_tenant: tenant_id " + TenantDirectory.problem(defaultTenant));
        }
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new ConfigException("kafka.bootstrap_servers: is required");
        }
        for (String[] t : new String[][] {{"topic", topic}, {"dead_letter_topic", deadLetter}}) {
            if (!t[1].matches("[a-zA-Z0-9._-]{1,249}") || t[1].equals(".") || t[1].equals("..")) {
                throw new ConfigException("kafka." + t[0] + ": must be a Kafka topic name (letters, digits, '.', '_', "
                        + "'-'), was \"" + t[1] + "\"");
            }
        }
        if (topic.equals(deadLetter)) {
            throw new ConfigException(
                    "kafka.dead_letter_topic: must differ from kafka.topic, both were \"" + topic + "\"");
        }
        for (String key : props.keySet()) {
            if (FIXED_CONSUMER_SETTINGS.contains(key)) {
                throw new ConfigException("kafka.properties." + key + ": is fixed by the indexer (manual commits, "
                        + "its own deserializers) or has its own kafka key; it cannot be overridden here");
            }
        }
        return new IndexerConfig.Kafka(bootstrap, topic, deadLetter, group, poll, fetch, props, defaultTenant);
    }

    private static IndexerConfig.Index index(ConfigNode n) throws ConfigException {
        long ram = n.bytes("ram_buffer", 128L * 1024 * 1024, 8L * 1024 * 1024, 16L * 1024 * 1024 * 1024);
        int maxOpen = (int) n.integer("max_open_shards", 64, 1, 100_000);
        int tracked = (int) n.integer("tracked_ids_per_shard", 1 << 20, 0, 1 << 26);
        StoreSettings.Compression compression =
                n.choice("compression", StoreSettings.Compression.class, StoreSettings.Compression.BEST_SPEED);
        Duration idle = n.duration("idle_close", Duration.ofMinutes(5), Duration.ZERO);
        IndexerConfig.OnCorruptShard onCorrupt =
                n.choice("on_corrupt_shard", IndexerConfig.OnCorruptShard.class, IndexerConfig.OnCorruptShard.FAIL);
        Duration skew = n.duration("max_future_skew", Duration.ofDays(1), Duration.ZERO);
        int fieldNames =
                (int) n.integer("max_field_names", StoreSettings.FieldNames.DEFAULT_PER_SHARD, 0, MAX_FIELD_NAMES);
        long nameBytes = n.bytes(
                "max_field_name_bytes_per_tenant", StoreSettings.FieldNames.DEFAULT_BYTES_PER_TENANT, 0, 1L << 30);
        Map<String, Integer> tenants = new HashMap<>();
        for (ConfigNode t : n.children("tenants")) {
            String id = t.requiredString("id");
            String problem = TenantDirectory.problem(id);
            if (problem != null) {
                throw new ConfigException(t.keyPath("id") + ": tenant_id " + problem);
            }
            int max = (int) t.integer("max_field_names", fieldNames, 0, MAX_FIELD_NAMES);
            t.rejectUnknownKeys();
            if (tenants.put(id, max) != null) {
                throw new ConfigException(t.keyPath("id") + ": tenant \"" + id + "\" is listed twice");
            }
        }
        n.rejectUnknownKeys();
        return new IndexerConfig.Index(
                new StoreSettings(
                        (int) (ram >> 20),
                        maxOpen,
                        tracked,
                        compression,
                        new StoreSettings.FieldNames(fieldNames, tenants, nameBytes)),
                idle,
                onCorrupt,
                skew);
    }

    private static IndexerConfig.Retention retention(ConfigNode n) throws ConfigException {
        int days = (int) n.integer("default_days", 30, 1, 36_500);
        Duration check = n.duration("check_interval", Duration.ofHours(1), Duration.ofMillis(100));
        int archiveAfter = (int) n.integer("archive_after", ArchivePolicy.DEFAULT_AFTER_DAYS, 0, 36_500);
        Map<String, Integer> tenants = new HashMap<>();
        Map<String, Integer> tenantArchiveAfter = new HashMap<>();
        for (ConfigNode t : n.children("tenants")) {
            String id = t.requiredString("id");
            String problem = TenantDirectory.problem(id);
            if (problem != null) {
                throw new ConfigException(t.keyPath("id") + ": tenant_id " + problem);
            }
            int d = (int) t.integer("retention_days", days, 1, 36_500);
            if (t.has("archive_after")) {
                tenantArchiveAfter.put(id, (int) t.integer("archive_after", archiveAfter, 0, 36_500));
            }
            t.rejectUnknownKeys();
            if (tenants.put(id, d) != null) {
                throw new ConfigException(t.keyPath("id") + ": tenant \"" + id + "\" is listed twice");
            }
        }
        n.rejectUnknownKeys();
        return new IndexerConfig.Retention(days, tenants, check, archiveAfter, tenantArchiveAfter);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
