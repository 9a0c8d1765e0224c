package dev.logpipe.index.opensearch;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where and how the OpenSearch store reaches its cluster and lays out its indices (docs/deployment.md): the hosts (tried
 * in turn, the next one when one cannot be reached), the credential, a CA file for TLS, the prefix of every index name,
 * shards and replicas per index, the refresh interval, and how bulks are cut and how many are in flight.
 */
public record OpenSearchSettings(
        List<URI> hosts,
        Credential credential,
        Optional<Path> caFile,
        String indexPrefix,
        int shards,
        int replicas,
        Duration refreshInterval,
        long bulkBytes,
        Duration requestTimeout,
        int bulkConcurrency) {
    /**
     * Bulk bodies in flight at once by default: one. Two (the next body sent while the first is written) gave no gain
     * on a 2-core box shared with the node (docs/benchmarks.md): the node's cost per record rose as much.
     */
    public static final int DEFAULT_BULK_CONCURRENCY = 1;

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_-]{0,31}");

    public OpenSearchSettings {
        hosts = List.copyOf(hosts);
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(refreshInterval, "refreshInterval");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts: at least one, was none");
        }
        for (URI h : hosts) {
            if (!("http".equals(h.getScheme()) || "https".equals(h.getScheme())) || h.getHost() == null) {
                throw new IllegalArgumentException("hosts: each an http:// or https:// address, was " + h);
            }
        }
        if (!PREFIX.matcher(indexPrefix).matches()) {
            throw new IllegalArgumentException(
                    "index_prefix: a-z first, then up to 31 of a-z 0-9 _ -, was \"" + indexPrefix + "\"");
        }
        if (shards < 1 || shards > 1024) {
            throw new IllegalArgumentException("shards: 1..1024, was " + shards);
        }
        if (replicas < 0 || replicas > 16) {
            throw new IllegalArgumentException("replicas: 0..16, was " + replicas);
        }
        if (refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException("refresh_interval: above 0, was " + refreshInterval);
        }
        if (bulkBytes < 64 * 1024 || bulkBytes > 100L * 1024 * 1024) {
            throw new IllegalArgumentException("bulk_bytes: 64 KiB..100 MiB, was " + bulkBytes);
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request_timeout: above 0, was " + requestTimeout);
        }
        if (bulkConcurrency < 1 || bulkConcurrency > 16) {
            throw new IllegalArgumentException("bulk_concurrency: 1..16, was " + bulkConcurrency);
        }
    }

    /** One local node without a credential, the defaults otherwise: for tests and a first try. */
    public static OpenSearchSettings local(URI host) {
        return new OpenSearchSettings(
                List.of(host),
                Credential.NONE,
                Optional.empty(),
                "logpipe",
                1,
                0,
                Duration.ofSeconds(1),
                5L * 1024 * 1024,
                Duration.ofSeconds(30),
                DEFAULT_BULK_CONCURRENCY);
    }

    /** How the store authenticates: nothing, HTTP basic, or an API key. Never printed. */
    public sealed interface Credential {
        Credential NONE = new None();

        /** The Authorization header's value, or empty. */
        Optional<String> header();

        record None() implements Credential {
            @Override
            public Optional<String> header() {
                return Optional.empty();
            }
        }

        record Basic(String user, String password) implements Credential {
            public Basic {
                Objects.requireNonNull(user, "user");
                Objects.requireNonNull(password, "password");
            }

            @Override
            public Optional<String> header() {
                return Optional.of("Basic "
                        + java.util.Base64.getEncoder()
                                .encodeToString(
                                        (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }

            @Override
            public String toString() {
                return "Basic[user=" + user + ", password=***]";
            }
        }

        record ApiKey(String encoded) implements Credential {
            public ApiKey {
                Objects.requireNonNull(encoded, "encoded");
            }

            @Override
            public Optional<String> header() {
                return Optional.of("ApiKey " + encoded);
            }

            @Override
            public String toString() {
                return "ApiKey[***]";
            }
        }
    }
}
