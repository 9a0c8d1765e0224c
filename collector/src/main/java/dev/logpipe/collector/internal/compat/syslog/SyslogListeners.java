package dev.logpipe.collector.internal.compat.syslog;

import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.SyslogConfig;
import dev.logpipe.collector.internal.ingest.IngestHandler;
import dev.logpipe.collector.internal.metrics.CollectorMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code syslog.listeners[]}: TCP (plain or TLS; octet-counted or newline framing) and UDP. Each connection's
 * messages go in batches through the shared ingest pipeline ({@link IngestHandler#handleAs}) for the listener's
 * tenant or the client certificate's. Syslog has no acknowledgement: when the pipeline answers 429/503 a TCP
 * connection stops reading (TCP pushes back on the sender) and resends the batch after Retry-After; UDP drops the
 * batch and counts it. At most {@code max_connections} connections per listener (more are closed at once, counted);
 * each holds one message of {@code max_message_bytes} and one batch. Owns its threads; {@link #close} is idempotent.
 */
public final class SyslogListeners implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SyslogListeners.class);

    private final List<CollectorConfig.Tenant> tenants;
    private final ApiKeys keys;
    private final IngestHandler ingest;
    private final CollectorMetrics metrics;
    private final SyslogProtocol protocol;
    private final List<AutoCloseable> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Map<Integer, InetSocketAddress> bound = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public SyslogListeners(
            List<CollectorConfig.Tenant> tenants,
            ApiKeys keys,
            IngestHandler ingest,
            CollectorMetrics metrics,
            Clock clock) {
        this.tenants = tenants;
        this.keys = keys;
        this.ingest = ingest;
        this.metrics = metrics;
        this.protocol = new SyslogProtocol(clock);
    }

    /** Binds and serves every listener; the i-th bound address is {@link #address(int)}. */
    public void start(SyslogConfig config) throws IOException {
        for (int i = 0; i < config.listeners().size(); i++) {
            SyslogConfig.Listener l = config.listeners().get(i);
            if (l.transport() == SyslogConfig.Transport.UDP) {
                DatagramSocket socket = new DatagramSocket(l.listen());
                sockets.add(socket);
                bound.put(i, (InetSocketAddress) socket.getLocalSocketAddress());
                thread("syslog-udp-" + i, () -> udp(l, socket));
            } else {
                ServerSocket server = l.tls() == null ? new ServerSocket() : TlsSockets.server(l.tls());
                server.bind(l.listen(), 128);
                sockets.add(server);
                bound.put(i, (InetSocketAddress) server.getLocalSocketAddress());
                thread("syslog-tcp-" + i, () -> accept(l, server));
            }
            log.info(
                    "syslog listener ready protocol={} listen={} tenant={} tls={}",
                    l.transport().name().toLowerCase(Locale.ROOT),
                    bound.get(i),
                    l.tenant() == null ? "(client certificate)" : l.tenant(),
                    l.tls() != null);
        }
    }

    public InetSocketAddress address(int listener) {
        return bound.get(listener);
    }

    private void thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    private CollectorConfig.Tenant tenant(String id) {
        return tenants.stream().filter(t -> t.id().equals(id)).findFirst().orElseThrow();
    }

    private void accept(SyslogConfig.Listener l, ServerSocket server) {
        Semaphore slots = new Semaphore(l.maxConnections());
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("syslog accept failed on {}: {}", l.listen(), e.toString());
                }
                continue;
            }
            if (!slots.tryAcquire()) {
                metrics.syslogDropped("connection_cap", 0);
                closeQuietly(s);
                continue;
            }
            connections.add(s);
            Thread t = new Thread(
                    () -> {
                        try {
                            connection(l, s);
                        } finally {
                            connections.remove(s);
                            closeQuietly(s);
                            slots.release();
                        }
                    },
                    "syslog-conn-" + s.getRemoteSocketAddress());
            t.setDaemon(true);
            t.start();
        }
    }

    private void connection(SyslogConfig.Listener l, Socket s) {
        String address = s.getInetAddress().getHostAddress();
        try {
            CollectorConfig.Tenant tenant =
                    l.tenant() != null ? tenant(l.tenant()) : keys.authenticate(null, TlsSockets.peerSubject(s));
            if (tenant == null) {
                metrics.syslogDropped("unknown_certificate", 0);
                log.warn(
                        "syslog connection from {} refused: its certificate maps to no tenant (cert_subjects)",
                        address);
                return;
            }
            InputStream in = s.getInputStream();
            SyslogFrames frames = new SyslogFrames(in, l.maxMessageBytes());
            SyslogBatch batch = new SyslogBatch();
            while (!closed) {
                boolean more = frames.next();
                if (more) {
                    if (frames.tooLong() > 0) {
                        batch.addTooLong(frames.tooLong());
                    } else {
                        batch.add(frames.array(), frames.length());
                    }
                }
                if (!batch.isEmpty() && (!more || batch.full() || !frames.more())) {
                    deliver(tenant, address, batch, true);
                }
                if (!more) {
                    return;
                }
            }
        } catch (IOException e) {
            if (!closed) {
                log.debug("syslog connection from {} ended: {}", address, e.toString());
            }
        }
    }

    /** Hands a batch to the pipeline; with {@code resend}, waits out 429/503 and sends again (TCP back-pressure). */
    private void deliver(CollectorConfig.Tenant tenant, String address, SyslogBatch batch, boolean resend) {
        int count = batch.count();
        byte[] body = batch.take();
        while (!closed) {
            IngestHandler.Answer a = ingest.handleAs(tenant, address, body, protocol);
            if (a.status() == 200) {
                return;
            }
            if ((a.status() == 429 || a.status() == 503) && resend) {
                try {
                    TimeUnit.SECONDS.sleep(Math.max(1, a.retryAfterSeconds()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                continue;
            }
            metrics.syslogDropped("status_" + a.status(), count);
            log.warn("syslog batch of {} messages from {} dropped: {} {}", count, address, a.status(), a.text());
            return;
        }
    }

    private void udp(SyslogConfig.Listener l, DatagramSocket socket) {
        CollectorConfig.Tenant tenant = tenant(l.tenant());
        byte[] buf = new byte[65_535];
        SyslogBatch batch = new SyslogBatch();
        String address = "udp:" + l.listen().getPort();
        while (!closed) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.setSoTimeout(batch.isEmpty() ? 0 : 5);
                socket.receive(p);
                if (p.getLength() > l.maxMessageBytes()) {
                    batch.addTooLong(p.getLength());
                } else {
                    batch.add(p.getData(), p.getLength());
                }
                if (batch.full()) {
                    deliver(tenant, address, batch, false);
                }
            } catch (SocketTimeoutException e) {
                deliver(tenant, address, batch, false);
            } catch (SocketException e) {
                if (!closed) {
                    log.warn("syslog UDP socket {} failed: {}", l.listen(), e.toString());
                }
                return;
            } catch (IOException e) {
                log.warn("syslog UDP receive on {} failed: {}", l.listen(), e.toString());
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing: nothing to do
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sockets.forEach(SyslogListeners::closeQuietly);
        connections.forEach(SyslogListeners::closeQuietly);
        for (Thread t : threads) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
