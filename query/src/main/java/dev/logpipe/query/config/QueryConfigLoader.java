package dev.logpipe.query.config;

import dev.logpipe.archive.config.ArchiveSettings;
import dev.logpipe.archive.config.ArchiveSettingsLoader;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.index.opensearch.OpenSearchSettingsLoader;
import dev.logpipe.index.shard.TenantDirectory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads and validates the query service's YAML; every error names the key path. */
public final class QueryConfigLoader {
    private final boolean tenantsFromKeyFile;

    /** The query process's loader: every tenant is listed under {@code tenants}. */
    public QueryConfigLoader() {
        this(false);
    }

    private QueryConfigLoader(boolean tenantsFromKeyFile) {
        this.tenantsFromKeyFile = tenantsFromKeyFile;
    }

    /**
     * The standalone's loader: its tenants come from its key file at run time, so a rule file's tenant is not checked
     * against {@code tenants} (a rule of a tenant without keys yet reports its evaluation error in the status).
     */
    public static QueryConfigLoader withTenantsFromKeyFile() {
        return new QueryConfigLoader(true);
    }

    private static final Pattern WINDOW = Pattern.compile("(\\d{1,6})(m|h|d)");
    /** The longest {@code limits.tail_lag}: a tail's window of sent records spans it (docs/query.md). */
    private static final Duration MAX_TAIL_LAG = Duration.ofMinutes(10);

    public QueryConfig load(Path file) throws ConfigException {
        return parse(ConfigNode.readFile(file), file.toAbsolutePath().toString());
    }

    public QueryConfig parse(String yaml, String origin) throws ConfigException {
        ConfigNode root = ConfigNode.fromYaml(yaml, origin);
        Path base = origin.startsWith("/")
                ? Path.of(origin).getParent()
                : Path.of("").toAbsolutePath();
        var listen = ConfigNode.parseAddress("listen", root.string("listen", "127.0.0.1:9400"));
        Path data = root.path("data_dir", base, base.resolve("data"));
        Duration reopen = root.duration("reopen_interval", Duration.ofSeconds(1), Duration.ofMillis(10));
        ConfigNode l = root.child("limits");
        Duration defaultWindow = window(l, "max_window", Duration.ofDays(30));
        int defaultConcurrent = (int) l.integer("max_concurrent_queries", 8, 1, 10_000);
        QueryConfig.Limits d = QueryConfig.defaultLimits();
        int maxTails = (int) l.integer("max_tails", d.maxTails(), 0, 10_000);
        int tailsPerTenant =
                (int) l.integer("max_tails_per_tenant", Math.min(d.maxTailsPerTenant(), maxTails), 0, 10_000);
        if (tailsPerTenant > maxTails) {
            throw new ConfigException(l.keyPath("max_tails_per_tenant") + ": must be at most limits.max_tails ("
                    + maxTails + "), was " + tailsPerTenant);
        }
        long answer = l.bytes("max_answer_bytes", d.maxAnswerBytes(), 64 * 1024, 1L << 30);
        long memory = l.bytes("answer_memory_bytes", Math.max(d.answerMemoryBytes(), answer), 64 * 1024, 1L << 40);
        if (memory < answer) {
            throw new ConfigException(l.keyPath("answer_memory_bytes") + ": must be at least limits.max_answer_bytes ("
                    + answer + "), was " + memory + " (no answer could be built)");
        }
        long tenantMemory = l.bytes("tenant_answer_memory_bytes", Math.max(answer, memory / 2), 64 * 1024, 1L << 40);
        if (tenantMemory < answer || tenantMemory > memory) {
            throw new ConfigException(l.keyPath("tenant_answer_memory_bytes") + ": must be between "
                    + "limits.max_answer_bytes (" + answer + ") and limits.answer_memory_bytes (" + memory + "), was "
                    + tenantMemory);
        }
        int running = (int) l.integer("max_running_queries", d.maxRunningQueries(), 1, 10_000);
        Duration tailLag = l.duration("tail_lag", d.tailLag(), Duration.ofSeconds(1));
        if (tailLag.compareTo(MAX_TAIL_LAG) > 0) { // a tail remembers what it sent for this long: bound it
            throw new ConfigException(l.keyPath("tail_lag") + ": must be <= " + ConfigNode.format(MAX_TAIL_LAG)
                    + ", was " + ConfigNode.format(tailLag));
        }
        QueryConfig.Limits limits = new QueryConfig.Limits(
                (int) l.integer("max_shards", d.maxShards(), 1, 100_000),
                l.integer("max_documents", d.maxDocuments(), 1, Long.MAX_VALUE),
                (int) l.integer("shard_concurrency", d.shardConcurrency(), 1, 1024),
                l.duration("query_timeout", d.queryTimeout(), Duration.ofMillis(10)),
                (int) l.integer("max_limit", d.maxLimit(), 1, 10_000),
                maxTails,
                (int) l.integer("search_threads", d.searchThreads(), 1, 1024),
                l.duration("tail_poll", d.tailPoll(), Duration.ofMillis(50)),
                tailsPerTenant,
                answer,
                memory,
                tenantMemory,
                running,
                (int) l.integer("tenant_running_queries", Math.min(d.tenantRunningQueries(), running), 1, running),
                tailLag,
                l.duration("exact_total_budget", d.exactTotalBudget(), Duration.ZERO),
                l.bytes("max_archive_bytes", d.maxArchiveBytes(), 1, Long.MAX_VALUE));
        l.rejectUnknownKeys();
        List<QueryConfig.Tenant> tenants = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Set<String> hashes = new HashSet<>();
        for (ConfigNode t : root.children("tenants")) {
            String id = t.requiredString("id");
            String problem = TenantDirectory.problem(id);
            if (problem != null) {
                throw new ConfigException(t.keyPath("id") + ": tenant_id " + problem);
            }
            if (!ids.add(id)) {
                throw new ConfigException(t.keyPath("id") + ": tenant \"" + id + "\" is listed twice");
            }
            List<String> keys = t.strings("api_key_sha256");
            for (int i = 0; i < keys.size(); i++) {
                if (!keys.get(i).matches("[0-9a-f]{64}")) {
                    throw new ConfigException(t.keyPath("api_key_sha256") + "[" + i + "]: must be 64 lower-case hex "
                            + "digits (the SHA-256 of the key, e.g. from `printf %s KEY | sha256sum`)");
                }
                if (!hashes.add(keys.get(i))) {
                    throw new ConfigException(t.keyPath("api_key_sha256") + "[" + i + "]: this key is already "
                            + "listed (one key maps to one tenant)");
                }
            }
            if (keys.isEmpty()) {
                throw new ConfigException(t.keyPath("api_key_sha256") + ": needs at least one key (a tenant no "
                        + "credential maps to can never search)");
            }
            Duration w = window(t, "max_window", defaultWindow);
            int c = (int) t.integer("max_concurrent_queries", defaultConcurrent, 1, 10_000);
            t.rejectUnknownKeys();
            tenants.add(new QueryConfig.Tenant(id, keys, w, c));
        }
        ConfigNode cu = root.child("cursor");
        Path secret = cu.path("secret_file", base, data.resolve("query-cursor.key"));
        cu.rejectUnknownKeys();
        QueryConfig.Audit audit = audit(root.child("audit"), base, data);
        AuthFailures.Policy auth = AuthFailures.Policy.read(root.child("auth"));
        Optional<OpenSearchSettings> opensearch = OpenSearchSettingsLoader.store(root);
        Optional<ArchiveSettings> archive = Optional.empty();
        if (opensearch.isPresent()) {
            if (root.has("archive")) {
                throw new ConfigException("archive: the archive tier is searched beside the Lucene store only; with "
                        + "store: opensearch old days stay in OpenSearch");
            }
        } else {
            archive = Optional.of(ArchiveSettingsLoader.read(root.child("archive"), base, data));
        }
        QueryConfig.Alerting alerting = alerting(root.child("alerting"), base, ids);
        ConfigNode admin = root.child("admin");
        List<String> adminKeys = keyHashes(admin, "api_key_sha256");
        List<String> scrapeKeys = keyHashes(admin, "scrape_key_sha256");
        admin.rejectUnknownKeys();
        root.rejectUnknownKeys();
        return new QueryConfig(
                listen,
                data,
                reopen,
                tenants,
                limits,
                secret,
                audit,
                auth,
                opensearch,
                alerting,
                archive,
                adminKeys,
                scrapeKeys);
    }

    /** A list of key hashes under {@code key}: each 64 lower-case hex digits. */
    private static List<String> keyHashes(ConfigNode admin, String key) throws ConfigException {
        List<String> hashes = admin.strings(key);
        for (int i = 0; i < hashes.size(); i++) {
            if (!hashes.get(i).matches("[0-9a-f]{64}")) {
                throw new ConfigException(admin.keyPath(key) + "[" + i + "]: must be 64 lower-case hex "
                        + "digits (the SHA-256 of the key, e.g. from `printf %s KEY | sha256sum`)");
            }
        }
        return hashes;
    }

    private QueryConfig.Alerting alerting(ConfigNode a, Path base, Set<String> tenants) throws ConfigException {
        Optional<java.net.URI> alertmanager = url(a, "alertmanager_url");
        Optional<java.net.URI> webhook = url(a, "webhook_url");
        String external = a.string("external_url", "");
        Duration resend = a.duration("resend_interval", Duration.ofMinutes(1), Duration.ofSeconds(1));
        List<QueryConfig.RuleFile> files = new ArrayList<>();
        for (ConfigNode r : a.children("rules")) {
            String tenant = r.requiredString("tenant");
            if (!tenantsFromKeyFile && !tenants.contains(tenant)) {
                throw new ConfigException(r.keyPath("tenant") + ": no tenant \"" + tenant + "\" is configured");
            }
            Path file = r.path("file", base, null);
            if (file == null) {
                throw new ConfigException(r.keyPath("file") + ": required (a rule file in the Prometheus/Loki format)");
            }
            r.rejectUnknownKeys();
            files.add(new QueryConfig.RuleFile(tenant, file));
        }
        a.rejectUnknownKeys();
        return new QueryConfig.Alerting(alertmanager, webhook, external, resend, files);
    }

    private static Optional<java.net.URI> url(ConfigNode a, String key) throws ConfigException {
        String v = a.string(key, "");
        if (v.isEmpty()) {
            return Optional.empty();
        }
        try {
            java.net.URI u = new java.net.URI(v);
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                throw new java.net.URISyntaxException(v, "not an http(s) URL with a host");
            }
            return Optional.of(u);
        } catch (java.net.URISyntaxException e) {
            throw new ConfigException(a.keyPath(key) + ": must be an http(s) URL, was \"" + v + "\"");
        }
    }

    private static QueryConfig.Audit audit(ConfigNode au, Path base, Path data) throws ConfigException {
        Path path = au.path("path", base, data.resolve("audit").resolve("query-audit.jsonl"));
        long fileBytes = au.bytes(
                "max_file_bytes", QueryConfig.Audit.DEFAULT_MAX_FILE_BYTES, 64 * 1024, 64L * 1024 * 1024 * 1024);
        int files = (int) au.integer("max_files", QueryConfig.Audit.DEFAULT_MAX_FILES, 1, 100_000);
        Duration rotateAfter =
                au.duration("rotate_after", QueryConfig.Audit.DEFAULT_ROTATE_AFTER, Duration.ofMinutes(1));
        Duration maxAge = window(au, "max_age", QueryConfig.Audit.DEFAULT_MAX_AGE);
        int lineBytes = (int) au.bytes("max_line_bytes", QueryConfig.Audit.DEFAULT_MAX_LINE_BYTES, 512, 1024 * 1024);
        au.rejectUnknownKeys();
        if (lineBytes > fileBytes) {
            throw new ConfigException(
                    "audit.max_line_bytes: must be at most audit.max_file_bytes (" + fileBytes + "), was " + lineBytes);
        }
        return new QueryConfig.Audit(path, fileBytes, files, rotateAfter, maxAge, lineBytes);
    }

    /** A window such as {@code 15m}, {@code 24h} or {@code 30d} (up to 3650 days). */
    private static Duration window(ConfigNode n, String key, Duration fallback) throws ConfigException {
        String s = n.string(key, null);
        if (s == null) {
            return fallback;
        }
        Matcher m = WINDOW.matcher(s.trim());
        if (!m.matches()) {
            throw new ConfigException(n.keyPath(key) + ": must be a window like 15m, 24h or 30d, was \"" + s + "\"");
        }
        long v = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "m" -> Duration.ofMinutes(v);
            case "h" -> Duration.ofHours(v);
            default -> Duration.ofDays(v);
        };
        if (d.isZero() || d.compareTo(Duration.ofDays(3650)) > 0) {
            throw new ConfigException(n.keyPath(key) + ": must be between 1m and 3650d, was \"" + s + "\"");
        }
        return d;
    }
}
