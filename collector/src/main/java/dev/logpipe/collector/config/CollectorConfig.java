package dev.logpipe.collector.config;

import dev.logpipe.auth.AuthFailures;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The collector's validated configuration (docs/collector.md lists every key). */
public record CollectorConfig(
        InetSocketAddress listen,
        Tls tls,
        Limits limits,
        List<Tenant> tenants,
        Kafka kafka,
        Redaction redaction,
        SyslogConfig syslog,
        AuthFailures.Policy auth) {
    public CollectorConfig {
        tenants = List.copyOf(tenants);
        syslog = syslog == null ? SyslogConfig.NONE : syslog;
        auth = auth == null ? AuthFailures.Policy.DEFAULT : auth;
    }

    /** Without syslog listeners. */
    public CollectorConfig(
            InetSocketAddress listen, Tls tls, Limits limits, List<Tenant> tenants, Kafka kafka, Redaction redaction) {
        this(listen, tls, limits, tenants, kafka, redaction, null, null);
    }

    /**
     * Admission and decoding bounds. {@code maxBodyBytes}: bytes on the wire (413); {@code maxDecodedBytes}: after
     * decompression (413); {@code maxRecordBytes}: one line (longer lines are dead-lettered);
     * {@code inFlightBytes}: memory held by requests being processed at once (503 beyond it); the connection and
     * request caps, the body pace ({@code minBodyRate} bytes/s after a second, all of it within {@code bodyTimeout})
     * and the longest Retry-After a rate-limited client is told.
     */
    public record Limits(
            long maxBodyBytes,
            long maxDecodedBytes,
            int maxRecordBytes,
            long inFlightBytes,
            Duration idleTimeout,
            Duration maxFutureSkew,
            Duration maxPastAge,
            long minBodyRate,
            Duration bodyTimeout,
            int maxConcurrentRequests,
            int maxRequestsPerTenant,
            int maxRequestsPerAddress,
            int maxConnections,
            int maxConnectionsPerAddress,
            Duration maxRetryAfter) {}

    /**
     * One tenant: the SHA-256 hashes (hex) of its API keys, its rate limits (0 = unlimited) and, for a high-volume
     * tenant, how many partition-key shards of its own it spreads over (0 = shared keys).
     */
    public record Tenant(
            String id,
            List<String> apiKeySha256,
            List<String> certSubjects,
            long recordsPerSecond,
            long bytesPerSecond,
            Duration burst,
            int dedicatedShards) {
        public Tenant {
            apiKeySha256 = List.copyOf(apiKeySha256);
            certSubjects = List.copyOf(certSubjects);
        }

        @Override
        public String toString() {
            return "Tenant[" + id + ", " + apiKeySha256.size() + " keys]";
        }
    }

    public record Kafka(
            String bootstrapServers,
            String topic,
            String deadLetterTopic,
            int partitions,
            short replicationFactor,
            int minInsyncReplicas,
            String compression,
            Duration deliveryTimeout,
            int sharedShards,
            Map<String, String> properties) {
        public Kafka {
            properties = Map.copyOf(properties);
        }

        @Override
        public String toString() {
            return "Kafka[" + bootstrapServers + ", " + topic + ", properties=" + properties.keySet() + "]";
        }
    }

    /** Configured rules come on top of the built-in ones; a value longer than {@code maxScanBytes} is withheld. */
    public record Redaction(List<Rule> rules, int maxScanBytes) {
        public Redaction {
            rules = List.copyOf(rules);
        }
    }

    public record Rule(String name, String pattern, String replacement) {}

    /** What a client certificate must be for: {@code NEED} refuses the handshake without one. */
    public enum ClientAuth {
        NONE,
        WANT,
        NEED
    }

    /**
     * TLS on the listener (null: plain HTTP). PKCS12 key store with the server's key and certificate; trust store
     * with the CAs that sign client certificates (for mTLS); passwords resolved from the environment.
     */
    public record Tls(
            Path keystore, String keystorePassword, Path truststore, String truststorePassword, ClientAuth clientAuth) {
        @Override
        public String toString() {
            return "Tls[" + keystore + ", client_auth=" + clientAuth + "]";
        }
    }
}
