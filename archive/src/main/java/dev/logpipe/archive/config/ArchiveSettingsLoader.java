package dev.logpipe.archive.config;

import dev.logpipe.archive.format.ArchiveWriter;
import dev.logpipe.archive.store.S3Settings;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Reads an {@code archive} section (docs/archive.md#configuration) for the indexer and the query service alike; every
 * error names its key path. The S3 secret is given inline or, better, as an environment variable's name
 * ({@code secret_access_key_env}); without keys the AWS SDK's default chain is used ({@code AWS_ACCESS_KEY_ID} and
 * {@code AWS_SECRET_ACCESS_KEY} from the environment).
 */
public final class ArchiveSettingsLoader {
    static final int DEFAULT_CACHE_DAYS = 4;
    static final long DEFAULT_CACHE_BYTES = 8L << 30;
    static final Duration DEFAULT_GRACE = Duration.ofHours(2);
    static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofMinutes(10);
    static final Duration DEFAULT_RESTORE_SETTLE = Duration.ofMinutes(1);

    private ArchiveSettingsLoader() {}

    public static ArchiveSettings read(ConfigNode n, Path base, Path dataDir) throws ConfigException {
        return read(n, base, dataDir, System::getenv);
    }

    /** As {@link #read(ConfigNode, Path, Path)}, with the environment given (for tests). */
    public static ArchiveSettings read(ConfigNode n, Path base, Path dataDir, UnaryOperator<String> env)
            throws ConfigException {
        ArchiveSettings d = ArchiveSettings.defaults(dataDir);
        String store = n.string("store", "directory");
        Optional<S3Settings> s3;
        switch (store) {
            case "directory" -> {
                if (n.has("s3")) {
                    throw new ConfigException(n.keyPath("s3") + ": only with store: s3 (store is directory)");
                }
                s3 = Optional.empty();
            }
            case "s3" -> {
                if (!n.has("s3")) {
                    throw new ConfigException(n.keyPath("s3") + ": required with store: s3 (its bucket at least)");
                }
                s3 = Optional.of(s3(n.child("s3"), env));
            }
            default -> throw new ConfigException(n.keyPath("store") + ": directory or s3, was \"" + store + "\"");
        }
        Path directory = n.path("directory", base, d.directory());
        Path catalog = n.path("catalog", base, d.catalog());
        Path work = n.path("work_dir", base, d.workDir());
        Path cache = n.path("cache_dir", base, d.cacheDir());
        int cacheDays = (int) n.integer("cache_days", DEFAULT_CACHE_DAYS, 1, 10_000);
        long cacheBytes = n.bytes("cache_bytes", DEFAULT_CACHE_BYTES, 1 << 20, Long.MAX_VALUE);
        Duration grace = n.duration("grace", DEFAULT_GRACE, Duration.ZERO);
        Duration check = n.duration("check_interval", DEFAULT_CHECK_INTERVAL, Duration.ofMillis(100));
        Duration settle = n.duration("restore_settle", DEFAULT_RESTORE_SETTLE, Duration.ZERO);
        int blockBytes =
                (int) n.bytes("block_bytes", ArchiveWriter.Settings.DEFAULTS.blockSourceBytes(), 4 << 10, 64 << 20);
        int level = (int) n.integer("zstd_level", ArchiveWriter.Settings.DEFAULTS.zstdLevel(), 1, 22);
        n.rejectUnknownKeys();
        return new ArchiveSettings(
                s3,
                directory,
                catalog,
                work,
                cache,
                cacheDays,
                cacheBytes,
                grace,
                check,
                settle,
                new ArchiveWriter.Settings(blockBytes, level));
    }

    private static S3Settings s3(ConfigNode n, UnaryOperator<String> env) throws ConfigException {
        URI endpoint = null;
        String given = n.string("endpoint", null);
        if (given != null) {
            try {
                endpoint = new URI(given);
                if (!("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))
                        || endpoint.getHost() == null) {
                    throw new URISyntaxException(given, "not an http:// or https:// address");
                }
            } catch (URISyntaxException e) {
                throw new ConfigException(n.keyPath("endpoint") + ": " + e.getMessage());
            }
        }
        String region = n.string("region", "us-east-1");
        String bucket = n.requiredString("bucket");
        String prefix = n.string("prefix", "");
        boolean pathStyle = n.bool("path_style", endpoint != null);
        String keyId = n.string("access_key_id", null);
        String secret = n.secret("secret_access_key", env);
        if ((keyId == null) != (secret == null)) {
            throw new ConfigException(n.keyPath(keyId == null ? "access_key_id" : "secret_access_key")
                    + ": access_key_id and secret_access_key go together (neither: the AWS SDK's default chain)");
        }
        Duration timeout = n.duration("timeout", Duration.ofSeconds(60), Duration.ofMillis(100));
        n.rejectUnknownKeys();
        return new S3Settings(endpoint, region, bucket, prefix, pathStyle, keyId, secret, timeout);
    }
}
