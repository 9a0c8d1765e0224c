package dev.logpipe.indexer.config;

import dev.logpipe.archive.config.ArchiveSettings;
import dev.logpipe.archive.tier.ArchivePolicy;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.index.store.lucene.StoreSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The indexer's validated configuration (docs/indexer.md#configuration); built by {@link IndexerConfigLoader}. With
 * {@code opensearch} present ({@code store: opensearch}) the records go to that cluster instead of the Lucene shards of
 * {@code data_dir} (which then holds only the audit log and legal holds). {@code archive} is the archive tier's store and
 * schedule (Lucene store only; docs/archive.md).
 */
public record IndexerConfig(
        InetSocketAddress listen,
        Path dataDir,
        Kafka kafka,
        Commit commit,
        Duration refreshInterval,
        Duration refreshBehindInterval,
        Index index,
        Retention retention,
        Admin admin,
        Path auditLog,
        AuthFailures.Policy auth,
        Optional<OpenSearchSettings> opensearch,
        Optional<ArchiveSettings> archive) {
    public IndexerConfig {
        admin = admin == null ? new Admin(List.of()) : admin;
        auth = auth == null ? AuthFailures.Policy.DEFAULT : auth;
        opensearch = opensearch == null ? Optional.empty() : opensearch;
        archive = archive == null ? Optional.empty() : archive;
    }

    /**
     * The consumer group and its bounds: records per poll, bytes per fetch. {@code defaultTenant} (or null) is the
     * tenant of records that carry no {@code tenant_id} (written to the topic by a forwarder's Kafka sink).
     */
    public record Kafka(
            String bootstrapServers,
            String topic,
            String deadLetterTopic,
            String groupId,
            int maxPollRecords,
            int fetchMaxBytes,
            Map<String, String> properties,
            String defaultTenant) {
        public Kafka {
            properties = Map.copyOf(properties);
        }
    }

    /** Index-then-commit every {@code interval} or every {@code maxRecords} records, whichever comes first. */
    public record Commit(Duration interval, long maxRecords) {}

    public enum OnCorruptShard {
        FAIL,
        MOVE_ASIDE
    }

    public record Index(
            StoreSettings store, Duration idleClose, OnCorruptShard onCorruptShard, Duration maxFutureSkew) {}

    /**
     * Per tenant: how many days are kept ({@code retention_days}) and after how many a day moves to the archive tier
     * ({@code archive_after}, 0 off; docs/archive.md).
     */
    public record Retention(
            int defaultDays,
            Map<String, Integer> tenantDays,
            Duration checkInterval,
            int defaultArchiveAfter,
            Map<String, Integer> tenantArchiveAfter) {
        public Retention {
            tenantDays = Map.copyOf(tenantDays);
            tenantArchiveAfter = Map.copyOf(tenantArchiveAfter);
        }

        /** Archiving after the default number of days for every tenant. */
        public Retention(int defaultDays, Map<String, Integer> tenantDays, Duration checkInterval) {
            this(defaultDays, tenantDays, checkInterval, ArchivePolicy.DEFAULT_AFTER_DAYS, Map.of());
        }

        public int days(String tenant) {
            return tenantDays.getOrDefault(tenant, defaultDays);
        }
    }

    /** SHA-256 hashes (hex) of the admin API keys; empty: the admin API answers 403. */
    public record Admin(List<String> apiKeySha256) {
        public Admin {
            apiKeySha256 = List.copyOf(apiKeySha256);
        }
    }
}
