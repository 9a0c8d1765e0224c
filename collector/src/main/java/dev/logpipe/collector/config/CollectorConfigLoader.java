package dev.logpipe.collector.config;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.collector.config.CollectorConfig.Kafka;
import dev.logpipe.collector.config.CollectorConfig.Limits;
import dev.logpipe.collector.config.CollectorConfig.Redaction;
import dev.logpipe.collector.config.CollectorConfig.Rule;
import dev.logpipe.collector.config.CollectorConfig.Tenant;
import dev.logpipe.collector.config.CollectorConfig.Tls;
import dev.logpipe.collector.internal.ingest.IngestRun;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads and validates the collector's YAML; every error names the key path. */
public final class CollectorConfigLoader {
    private static final Set<String> COMPRESSIONS = Set.of("zstd", "lz4", "gzip", "snappy", "none");
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
            "delivery.timeout.ms");

    public CollectorConfig load(Path file) throws ConfigException {
        return parse(ConfigNode.readFile(file), file.toAbsolutePath().toString());
    }

    public CollectorConfig parse(String yaml, String origin) throws ConfigException {
        ConfigNode root = ConfigNode.fromYaml(yaml, origin);
        var listen = ConfigNode.parseAddress("listen", root.string("listen", "127.0.0.1:8080"));
        Path base = origin.startsWith("/")
                ? Path.of(origin).getParent()
                : Path.of("").toAbsolutePath();
        Tls tls = tls(root.child("tls"), base);
        Limits limits = limits(root.child("limits"));
        List<Tenant> tenants = tenants(root);
        Kafka kafka = kafka(root.child("kafka"));
        Redaction redaction = redaction(root.child("redaction"));
        var syslog = SyslogConfig.parse(root.child("syslog"), base, tenants);
        AuthFailures.Policy auth = AuthFailures.Policy.read(root.child("auth"));
        root.rejectUnknownKeys();
        if (tls == null || tls.truststore() == null) {
            for (int i = 0; i < tenants.size(); i++) {
                if (!tenants.get(i).certSubjects().isEmpty()) {
                    throw new ConfigException("tenants[" + i + "].cert_subjects: needs tls.truststore (client "
                            + "certificates are only verified with TLS and a trust store)");
                }
            }
        }
        for (int i = 0; i < tenants.size(); i++) {
            if (tenants.get(i).apiKeySha256().isEmpty()
                    && tenants.get(i).certSubjects().isEmpty()) {
                throw new ConfigException("tenants[" + i + "]: needs api_key_sha256 or cert_subjects (a tenant no "
                        + "credential maps to can never send)");
            }
        }
        return new CollectorConfig(listen, tls, limits, tenants, kafka, redaction, syslog, auth);
    }

    private static Tls tls(ConfigNode t, Path base) throws ConfigException {
        if (!t.has("keystore")) {
            t.rejectUnknownKeys();
            return null;
        }
        return TlsConfigReader.read(t, base);
    }

    private static Limits limits(ConfigNode n) throws ConfigException {
        long body = n.bytes("max_body_bytes", 16L * 1024 * 1024, 1024, 1024L * 1024 * 1024);
        long decoded = n.bytes("max_decoded_bytes", 64L * 1024 * 1024, 1024, 4L * 1024 * 1024 * 1024);
        long record = n.bytes("max_record_bytes", 1024 * 1024, 256, 64L * 1024 * 1024);
        long inFlight = n.bytes("in_flight_bytes", 256L * 1024 * 1024, 1024 * 1024, 64L * 1024 * 1024 * 1024);
        Duration idle = n.duration("idle_timeout", Duration.ofSeconds(30), Duration.ofMillis(100));
        Duration future = n.duration("max_future_skew", Duration.ofHours(1), Duration.ZERO);
        Duration past = n.duration("max_past_age", Duration.ofHours(24), Duration.ZERO);
        long minRate = n.bytes("min_body_rate", 16 * 1024, 0, 1L << 30);
        Duration bodyTimeout = n.duration("body_timeout", Duration.ofSeconds(60), Duration.ofMillis(100));
        int concurrent = (int) n.integer("max_concurrent_requests", 128, 1, 10_000);
        int perTenant = (int) n.integer("max_requests_per_tenant", 32, 1, 10_000);
        int perAddress = (int) n.integer("max_requests_per_address", 64, 1, 10_000);
        int connections = (int) n.integer("max_connections", 10_000, 1, 1_000_000);
        int connectionsPerAddress = (int) n.integer("max_connections_per_address", 1_024, 1, 1_000_000);
        Duration maxRetryAfter = n.duration("max_retry_after", Duration.ofSeconds(60), Duration.ofSeconds(1));
        n.rejectUnknownKeys();
        if (decoded < body) {
            throw new ConfigException("limits.max_decoded_bytes: must be at least limits.max_body_bytes (" + body
                    + " bytes), was " + decoded);
        }
        if (record > decoded) {
            throw new ConfigException("limits.max_record_bytes: must be at most limits.max_decoded_bytes (" + decoded
                    + " bytes), was " + record);
        }
        if (perTenant > concurrent) {
            throw new ConfigException("limits.max_requests_per_tenant: must be at most limits.max_concurrent_requests ("
                    + concurrent + "), was " + perTenant + " (one tenant could take every slot)");
        }
        if (maxRetryAfter.compareTo(Duration.ofHours(1)) > 0) {
            throw new ConfigException("limits.max_retry_after: must be at most 1h, was " + maxRetryAfter);
        }
        Limits limits = new Limits(
                body,
                decoded,
                (int) record,
                inFlight,
                idle,
                future,
                past,
                minRate,
                bodyTimeout,
                concurrent,
                perTenant,
                perAddress,
                connections,
                connectionsPerAddress,
                maxRetryAfter);
        long worst = IngestRun.worstCaseBytes(limits);
        if (inFlight < worst) {
            throw new ConfigException("limits.in_flight_bytes: must be at least " + worst + " bytes for "
                    + "limits.max_record_bytes " + record + " (the most one request can hold at once: a zstd window, "
                    + "one line being processed, open message buffers), was " + inFlight
                    + " (no request with such a line could ever be served)");
        }
        return limits;
    }

    private static List<Tenant> tenants(ConfigNode root) throws ConfigException {
        List<Tenant> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Map<String, String> keyOwner = new HashMap<>();
        for (ConfigNode t : root.children("tenants")) {
            String id = t.requiredString("id");
            if (!id.matches("[a-z0-9][a-z0-9_-]{0,62}")) {
                throw new ConfigException(t.keyPath("id") + ": must be 1-63 of lower-case letters, digits, '_' and "
                        + "'-', starting with a letter or digit, was \"" + id + "\"");
            }
            if (!ids.add(id)) {
                throw new ConfigException(t.keyPath("id") + ": tenant \"" + id + "\" is defined twice");
            }
            List<String> hashes = new ArrayList<>(t.strings("api_key_sha256"));
            List<String> subjects = new ArrayList<>();
            for (String subject : t.strings("cert_subjects")) {
                String normal = ClientCertificates.normalize(subject);
                if (normal == null) {
                    throw new ConfigException(t.keyPath("cert_subjects") + ": \"" + subject + "\" is not a "
                            + "distinguished name like CN=forwarder,O=Acme");
                }
                String other = keyOwner.putIfAbsent("subject:" + normal, id);
                if (other != null) {
                    throw new ConfigException(t.keyPath("cert_subjects") + ": \"" + subject + "\" is already given "
                            + "to tenant \"" + other + "\"");
                }
                subjects.add(normal);
            }
            for (int i = 0; i < hashes.size(); i++) {
                String h = hashes.get(i).toLowerCase(Locale.ROOT);
                if (!h.matches("[0-9a-f]{64}")) {
                    // Never echo the value: someone may have pasted the key itself.
                    throw new ConfigException(t.keyPath("api_key_sha256") + "[" + i + "]: must be the 64 hex digits "
                            + "of the key's SHA-256 (sha256sum), not the key itself");
                }
                String other = keyOwner.putIfAbsent(h, id);
                if (other != null) {
                    throw new ConfigException(t.keyPath("api_key_sha256") + "[" + i + "]: the same key is already "
                            + "given to tenant \"" + other + "\"; a key maps to exactly one tenant");
                }
                hashes.set(i, h);
            }
            // A token bucket refills at most one token per nanosecond: 10^9 per second is the most it can hold.
            long records = t.integer("records_per_second", 0, 0, 1_000_000_000);
            long bytes = t.bytes("bytes_per_second", 0, 0, 1_000_000_000);
            Duration burst = t.duration("burst", Duration.ofSeconds(1), Duration.ofMillis(1));
            if (burst.compareTo(Duration.ofHours(1)) > 0) {
                throw new ConfigException(t.keyPath("burst") + ": must be at most 1h, was " + burst);
            }
            int shards = (int) t.integer("dedicated_shards", 0, 0, 4096);
            t.rejectUnknownKeys();
            out.add(new Tenant(id, hashes, subjects, records, bytes, burst, shards));
        }
        return out;
    }

    private static Kafka kafka(ConfigNode k) throws ConfigException {
        String bootstrap = k.string("bootstrap_servers", null);
        String topic = k.string("topic", "logpipe.records");
        String deadLetter = k.string("dead_letter_topic", "logpipe.dead-letter");
        int partitions = (int) k.integer("partitions", 12, 1, 100_000);
        short rf = (short) k.integer("replication_factor", 3, 1, 32);
        int minIsr = (int) k.integer("min_insync_replicas", 2, 1, 32);
        String compression = k.string("compression", "lz4").toLowerCase(Locale.ROOT);
        Duration delivery = k.duration("delivery_timeout", Duration.ofSeconds(30), Duration.ofSeconds(1));
        int shared = (int) k.integer("shards_per_service", 8, 1, 4096);
        Map<String, String> props = k.stringMap("properties");
        k.rejectUnknownKeys();
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new ConfigException("kafka.bootstrap_servers: is required");
        }
        for (String t : List.of(topic, deadLetter)) {
            if (!t.matches("[a-zA-Z0-9._-]{1,249}") || t.equals(".") || t.equals("..")) {
                throw new ConfigException("kafka." + (t.equals(topic) ? "topic" : "dead_letter_topic") + ": must be a "
                        + "Kafka topic name (letters, digits, '.', '_', '-'), was \"" + t + "\"");
            }
        }
        if (minIsr > rf) {
            throw new ConfigException("kafka.min_insync_replicas: must be at most kafka.replication_factor (" + rf
                    + "), was " + minIsr + " (every write would fail with NotEnoughReplicas)");
        }
        if (!COMPRESSIONS.contains(compression)) {
            throw new ConfigException(
                    "kafka.compression: must be one of zstd, lz4, gzip, snappy, none, was \"" + compression + "\"");
        }
        for (String key : props.keySet()) {
            if (FIXED_PRODUCER_SETTINGS.contains(key)) {
                throw new ConfigException("kafka.properties." + key + ": is fixed by the collector (acks=all, "
                        + "idempotence) or has its own kafka key; it cannot be overridden here");
            }
        }
        String linger = props.get("linger.ms");
        if (linger != null && !linger.trim().matches("\\d{1,6}")) {
            throw new ConfigException(
                    "kafka.properties.linger.ms: must be a whole number of milliseconds, was \"" + linger + "\"");
        }
        return new Kafka(bootstrap, topic, deadLetter, partitions, rf, minIsr, compression, delivery, shared, props);
    }

    private static Redaction redaction(ConfigNode r) throws ConfigException {
        List<Rule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ConfigNode rule : r.children("rules")) {
            String name = rule.requiredString("name");
            String pattern = rule.requiredString("pattern");
            String replacement = rule.string("replacement", "[REDACTED:" + name + "]");
            rule.rejectUnknownKeys();
            if (!names.add(name)) {
                throw new ConfigException(rule.keyPath("name") + ": rule \"" + name + "\" is defined twice");
            }
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                throw new ConfigException(
                        rule.keyPath("pattern") + ": is not a valid RE2 pattern: " + e.getDescription());
            }
            rules.add(new Rule(name, pattern, replacement));
        }
        int maxScan = (int) r.bytes("max_scan_bytes", 256 * 1024, 1024, 64L * 1024 * 1024);
        r.rejectUnknownKeys();
        return new Redaction(rules, maxScan);
    }
}
