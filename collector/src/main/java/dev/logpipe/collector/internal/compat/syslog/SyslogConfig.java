package dev.logpipe.collector.internal.compat.syslog;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code syslog.listeners[]} (docs/ingest.md#syslog): each a TCP (optionally TLS) or UDP listener for one tenant,
 * or, with TLS and a trust store, for the tenant of each client certificate ({@code tenants[].cert_subjects}).
 */
public record SyslogConfig(List<Listener> listeners) {
    public SyslogConfig {
        listeners = List.copyOf(listeners);
    }

    public static final SyslogConfig NONE = new SyslogConfig(List.of());

    public enum Transport {
        TCP,
        UDP
    }

    /**
     * @param tenant null: the client certificate's tenant (TLS with a trust store)
     * @param tls    null: plain TCP (always null for UDP)
     */
    public record Listener(
            Transport transport,
            InetSocketAddress listen,
            String tenant,
            CollectorConfig.Tls tls,
            int maxConnections,
            int maxMessageBytes) {}

    /** Parses the {@code syslog} node; every key is validated by its path. */
    public static SyslogConfig parse(ConfigNode syslog, Path base, List<CollectorConfig.Tenant> tenants)
            throws ConfigException {
        List<Listener> out = new ArrayList<>();
        List<ConfigNode> nodes = syslog.children("listeners");
        for (ConfigNode l : nodes) {
            Transport transport = l.choice("protocol", Transport.class, null);
            if (transport == null) {
                throw new ConfigException(l.keyPath("protocol") + ": is required (tcp or udp)");
            }
            InetSocketAddress listen = ConfigNode.parseAddress(l.keyPath("listen"), l.requiredString("listen"));
            String tenant = l.string("tenant", null);
            if (tenant != null && tenants.stream().noneMatch(t -> t.id().equals(tenant))) {
                throw new ConfigException(l.keyPath("tenant") + ": no tenant " + tenant + " in tenants[]");
            }
            CollectorConfig.Tls tls = l.has("tls") ? tls(l.child("tls"), base) : null;
            if (tls != null && transport == Transport.UDP) {
                throw new ConfigException(l.keyPath("tls") + ": TLS is for protocol tcp only");
            }
            if (tenant == null && (tls == null || tls.truststore() == null)) {
                throw new ConfigException(l.keyPath("tenant") + ": is required unless tls.truststore is set (then "
                        + "the client certificate names the tenant)");
            }
            int maxConnections = (int) l.integer("max_connections", 256, 1, 100_000);
            int maxMessage = (int) l.bytes("max_message_bytes", 64 * 1024, 480, 1 << 20);
            l.rejectUnknownKeys();
            out.add(new Listener(transport, listen, tenant, tls, maxConnections, maxMessage));
        }
        syslog.rejectUnknownKeys();
        return new SyslogConfig(out);
    }

    private static CollectorConfig.Tls tls(ConfigNode t, Path base) throws ConfigException {
        Path keystore = t.path("keystore", base, null);
        if (keystore == null) {
            throw new ConfigException(t.keyPath("keystore") + ": is required");
        }
        String keystorePassword = secret(t, "keystore_password");
        Path truststore = t.path("truststore", base, null);
        String truststorePassword = truststore == null ? null : secret(t, "truststore_password");
        CollectorConfig.ClientAuth auth = t.choice(
                "client_auth",
                CollectorConfig.ClientAuth.class,
                truststore == null ? CollectorConfig.ClientAuth.NONE : CollectorConfig.ClientAuth.WANT);
        t.rejectUnknownKeys();
        for (Path p : truststore == null ? List.of(keystore) : List.of(keystore, truststore)) {
            if (!Files.isReadable(p)) {
                throw new ConfigException(
                        t.keyPath(p == keystore ? "keystore" : "truststore") + ": " + p + " is not a readable file");
            }
        }
        if (auth != CollectorConfig.ClientAuth.NONE && truststore == null) {
            throw new ConfigException(
                    t.keyPath("client_auth") + ": " + auth.name().toLowerCase(Locale.ROOT) + " needs a truststore");
        }
        return new CollectorConfig.Tls(keystore, keystorePassword, truststore, truststorePassword, auth);
    }

    private static String secret(ConfigNode t, String key) throws ConfigException {
        String value = t.string(key, null);
        String env = t.string(key + "_env", null);
        if (value != null && env != null) {
            throw new ConfigException(t.keyPath(key + "_env") + ": set either " + t.keyPath(key) + " or "
                    + t.keyPath(key + "_env") + ", not both");
        }
        if (env != null) {
            value = System.getenv(env);
            if (value == null) {
                throw new ConfigException(t.keyPath(key + "_env") + ": environment variable " + env + " is not set");
            }
        }
        if (value == null) {
            throw new ConfigException(t.keyPath(key) + ": is required (or " + t.keyPath(key + "_env") + ")");
        }
        return value;
    }
}
