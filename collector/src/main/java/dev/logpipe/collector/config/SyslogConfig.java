package dev.logpipe.collector.config;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
            CollectorConfig.Tls tls = l.has("tls") ? TlsConfigReader.read(l.child("tls"), base) : null;
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
}
