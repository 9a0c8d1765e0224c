package dev.logpipe.query.config;

import dev.logpipe.archive.config.ArchiveSettings;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The query service's validated configuration (docs/query.md#configuration); built by {@link QueryConfigLoader}. With
 * {@code archive} present the days the indexer archived are searched too (docs/archive.md#searching).
 */
public record QueryConfig(
        InetSocketAddress listen,
        Path dataDir,
        Duration reopenInterval,
        List<Tenant> tenants,
        Limits limits,
        Path cursorSecretFile,
        Audit audit,
        AuthFailures.Policy auth,
        Optional<OpenSearchSettings> opensearch,
        Alerting alerting,
        Optional<ArchiveSettings> archive,
        List<String> adminKeyHashes,
        List<String> scrapeKeyHashes) {
    public QueryConfig {
        tenants = List.copyOf(tenants);
        adminKeyHashes = List.copyOf(adminKeyHashes);
        scrapeKeyHashes = List.copyOf(scrapeKeyHashes);
        Objects.requireNonNull(archive, "archive");
        Objects.requireNonNull(alerting, "alerting");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(audit, "audit");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(opensearch, "opensearch");
    }

    /**
     * Alert rules (docs/loki.md#alert-rules): rule files per tenant, where firing and resolved alerts go (an
     * Alertmanager's API v2 and/or a webhook), the base of their {@code generatorURL}, how often active alerts are
     * sent again.
     */
    public record Alerting(
            Optional<java.net.URI> alertmanager,
            Optional<java.net.URI> webhook,
            String externalUrl,
            Duration resendInterval,
            List<RuleFile> ruleFiles) {
        public static final Alerting NONE =
                new Alerting(Optional.empty(), Optional.empty(), "", Duration.ofMinutes(1), List.of());

        public Alerting {
            Objects.requireNonNull(alertmanager, "alertmanager");
            Objects.requireNonNull(webhook, "webhook");
            Objects.requireNonNull(externalUrl, "externalUrl");
            ruleFiles = List.copyOf(ruleFiles);
        }
    }

    /** A rule file (Prometheus/Loki ruler format) of one tenant. */
    public record RuleFile(String tenant, Path file) {}

    public Path auditLog() {
        return audit.path();
    }

    /**
     * The audit log: the file, when it is rotated (past {@code maxFileBytes}, or {@code rotateAfter} after it began),
     * how many rotated files are kept and for how long, and the longest line ({@code maxLineBytes}: longer text
     * values are cut with their original length recorded). On disk at most {@code (maxFiles + 1) * maxFileBytes}.
     */
    public record Audit(
            Path path, long maxFileBytes, int maxFiles, Duration rotateAfter, Duration maxAge, int maxLineBytes) {
        public static final long DEFAULT_MAX_FILE_BYTES = 64L * 1024 * 1024;
        public static final int DEFAULT_MAX_FILES = 10;
        public static final Duration DEFAULT_ROTATE_AFTER = Duration.ofHours(24);
        public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(30);
        public static final int DEFAULT_MAX_LINE_BYTES = 4096;

        public Audit {
            Objects.requireNonNull(path, "path");
            if (maxFileBytes < maxLineBytes || maxFiles < 1 || maxLineBytes < 512) {
                throw new IllegalArgumentException(
                        "audit: max_file_bytes >= max_line_bytes >= 512, max_files >= 1, was " + maxFileBytes + ", "
                                + maxLineBytes + ", " + maxFiles);
            }
        }

        public static Audit defaults(Path path) {
            return new Audit(
                    path,
                    DEFAULT_MAX_FILE_BYTES,
                    DEFAULT_MAX_FILES,
                    DEFAULT_ROTATE_AFTER,
                    DEFAULT_MAX_AGE,
                    DEFAULT_MAX_LINE_BYTES);
        }
    }

    /** One tenant: its API keys (hex SHA-256), widest time window, queries at once. */
    public record Tenant(String id, List<String> apiKeySha256, Duration maxWindow, int maxConcurrentQueries) {
        public Tenant {
            apiKeySha256 = List.copyOf(apiKeySha256);
        }
    }

    /**
     * Plan-time limits for every query: shards and documents scanned at most (the budget), shards searched at once
     * per query, the per-query deadline (from the request's arrival), hits per page, live tails at once (in all and
     * per tenant), search threads, the tail's poll; the bytes of one answer's records, of all answers in flight, and
     * of one tenant's answers in flight; queries running at once in all and per tenant (the rest wait, within their
     * deadline, and waiting tenants are served in turn); how long after its observed time a record may first become
     * searchable (a tail's window); how long a search may spend, after its page, counting its total exactly; the
     * archive bytes one query may fetch and decompress (blocks of archived days not in the cache, counted at plan
     * time).
     */
    public record Limits(
            int maxShards,
            long maxDocuments,
            int shardConcurrency,
            Duration queryTimeout,
            int maxLimit,
            int maxTails,
            int searchThreads,
            Duration tailPoll,
            int maxTailsPerTenant,
            long maxAnswerBytes,
            long answerMemoryBytes,
            long tenantAnswerMemoryBytes,
            int maxRunningQueries,
            int tenantRunningQueries,
            Duration tailLag,
            Duration exactTotalBudget,
            long maxArchiveBytes) {
        public Limits {
            if (tenantRunningQueries > maxRunningQueries) {
                throw new IllegalArgumentException("tenant_running_queries " + tenantRunningQueries
                        + " is more than max_running_queries " + maxRunningQueries);
            }
            if (maxTailsPerTenant > maxTails) {
                throw new IllegalArgumentException(
                        "max_tails_per_tenant " + maxTailsPerTenant + " is more than max_tails " + maxTails);
            }
            if (maxAnswerBytes > tenantAnswerMemoryBytes || tenantAnswerMemoryBytes > answerMemoryBytes) {
                throw new IllegalArgumentException("need max_answer_bytes (" + maxAnswerBytes
                        + ") <= tenant_answer_memory_bytes (" + tenantAnswerMemoryBytes + ") <= answer_memory_bytes ("
                        + answerMemoryBytes + ")");
            }
        }
    }

    /** Tenant id to key hashes, for {@link dev.logpipe.query.auth.ConfiguredKeys}. */
    public Map<String, List<String>> keys() {
        Map<String, List<String>> m = new HashMap<>();
        tenants.forEach(t -> m.put(t.id(), t.apiKeySha256()));
        return m;
    }

    public Tenant tenant(String id) {
        for (Tenant t : tenants) {
            if (t.id().equals(id)) {
                return t;
            }
        }
        return null;
    }

    public static Limits defaultLimits() {
        return new Limits(
                31,
                100_000_000L,
                8,
                Duration.ofSeconds(10),
                1000,
                16,
                8,
                Duration.ofMillis(500),
                4,
                4L << 20,
                64L << 20,
                32L << 20,
                16,
                2,
                Duration.ofMinutes(1),
                Duration.ofMillis(250),
                4L << 30);
    }
}
