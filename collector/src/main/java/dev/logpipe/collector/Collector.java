package dev.logpipe.collector;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.http.CollectorServer;
import dev.logpipe.collector.internal.admission.InFlightBytes;
import dev.logpipe.collector.internal.admission.RequestSlots;
import dev.logpipe.collector.internal.admission.TenantLimits;
import dev.logpipe.collector.internal.compat.syslog.SyslogListeners;
import dev.logpipe.collector.internal.ingest.IngestHandler;
import dev.logpipe.collector.internal.ingest.IngestProcessor;
import dev.logpipe.collector.internal.metrics.CollectorMetrics;
import dev.logpipe.collector.internal.publish.KafkaPublisher;
import dev.logpipe.collector.internal.publish.TopicSetup;
import dev.logpipe.collector.internal.redact.Redactor;
import dev.logpipe.role.CloseAll;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import org.eclipse.jetty.server.Handler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One running collector: topics ensured, producer open, HTTP serving. Stateless: run as many as you like. */
public final class Collector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Collector.class);

    private final TopicSetup topics;
    private final KafkaPublisher publisher;
    private final CollectorServer server;
    private final PrometheusMeterRegistry registry;

    private final SyslogListeners syslog;
    private final TenantLimits tenantLimits;

    private Collector(
            TopicSetup topics,
            KafkaPublisher publisher,
            CollectorServer server,
            PrometheusMeterRegistry registry,
            SyslogListeners syslog,
            TenantLimits tenantLimits) {
        this.syslog = syslog;
        this.tenantLimits = tenantLimits;
        this.topics = topics;
        this.publisher = publisher;
        this.server = server;
        this.registry = registry;
    }

    /**
     * Ensures the topics (waiting up to {@code topicTimeout} for the broker), then serves.
     *
     * @throws IllegalStateException the broker cannot be reached or the topics cannot be created
     */
    public static Collector start(CollectorConfig config, Clock clock, Duration topicTimeout) throws Exception {
        return start(
                config,
                clock,
                topicTimeout,
                new ApiKeys(config.tenants(), new HashMap<>(), new AuthFailures(config.auth(), System::nanoTime)),
                Listen.OWN_PORT);
    }

    /** Whether the collector binds {@code config.listen()} itself, or only offers its routes ({@link #handler()}). */
    public enum Listen {
        OWN_PORT,
        MOUNTED
    }

    /**
     * As {@link #start(CollectorConfig, Clock, Duration)} with the given credentials (for example keys that change
     * at run time); {@link Listen#MOUNTED} binds no port, the caller serves {@link #handler()} on its own. The keys'
     * failed-authentication limit is registered in this collector's metrics.
     */
    public static Collector start(
            CollectorConfig config, Clock clock, Duration topicTimeout, ApiKeys keys, Listen listen) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        keys.failures().register(registry);
        TopicSetup topics = new TopicSetup(config.kafka());
        KafkaPublisher publisher = null;
        SyslogListeners syslog = null;
        try {
            topics.ensureTopics(topicTimeout);
            publisher = new KafkaPublisher(config.kafka());
            InFlightBytes inFlight = new InFlightBytes(config.limits().inFlightBytes());
            CollectorMetrics metrics = new CollectorMetrics(registry, inFlight);
            Redactor redactor = new Redactor(config.redaction());
            CollectorConfig.Limits limits = config.limits();
            KafkaPublisher producer = publisher;
            TenantLimits tenantLimits = new TenantLimits(config.tenants(), limits.maxRetryAfter());
            IngestHandler ingest = new IngestHandler(
                    config,
                    keys,
                    new IngestHandler.Admission(
                            new RequestSlots(
                                    limits.maxRequestsPerTenant(),
                                    limits.maxRequestsPerAddress(),
                                    limits.maxConcurrentRequests()),
                            tenantLimits,
                            inFlight),
                    new IngestProcessor(config, redactor),
                    () -> producer.open(config.kafka().topic(), config.kafka().deadLetterTopic()),
                    metrics,
                    new IngestHandler.Clocks(clock, System::nanoTime));
            CollectorServer server =
                    new CollectorServer(config.listen(), config.tls(), limits, ingest, topics, registry);
            if (listen == Listen.OWN_PORT) {
                server.start();
            }
            syslog = new SyslogListeners(config.tenants(), keys, ingest, metrics, clock);
            try {
                syslog.start(config.syslog());
            } catch (IOException | RuntimeException e) {
                server.close();
                throw new IllegalStateException("cannot start the syslog listeners: " + e.getMessage(), e);
            }
            if (listen == Listen.MOUNTED) {
                log.info(
                        "collector ready (mounted) tenants={} topic={} bootstrap={} syslog_listeners={}",
                        config.tenants().size(),
                        config.kafka().topic(),
                        config.kafka().bootstrapServers(),
                        config.syslog().listeners().size());
                return new Collector(topics, publisher, server, registry, syslog, tenantLimits);
            }
            log.info(
                    "collector ready listen={}{} tenants={} topic={} dead_letter_topic={} bootstrap={} "
                            + "redaction_rules={}",
                    config.tls() == null ? "http://" : "https://",
                    hostPort(server.address()),
                    config.tenants().size(),
                    config.kafka().topic(),
                    config.kafka().deadLetterTopic(),
                    config.kafka().bootstrapServers(),
                    redactor.ruleNames());
            return new Collector(topics, publisher, server, registry, syslog, tenantLimits);
        } catch (Exception | Error e) {
            if (syslog != null) {
                syslog.close();
            }
            if (publisher != null) {
                publisher.close();
            }
            topics.close();
            throw e;
        }
    }

    static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    public InetSocketAddress address() {
        return server.address();
    }

    /** The bound address of {@code syslog.listeners[i]}. */
    public InetSocketAddress syslogAddress(int i) {
        return syslog.address(i);
    }

    /** The collector's routes as a Jetty handler (see {@link CollectorServer#handler()}). */
    public Handler handler() {
        return server.handler();
    }

    /** Whether the broker answers (what {@code /readyz} reports; probed at most once a second). */
    public boolean brokerReachable() {
        return topics.brokerReachable();
    }

    /**
     * Replaces the tenants' ingest rate limits while running (see {@link TenantLimits#update}); the keys that
     * authenticate are the {@link ApiKeys}' business. Not for a collector run from its config file, whose tenants
     * are fixed at start.
     */
    public void updateTenantLimits(Iterable<CollectorConfig.Tenant> tenants) {
        tenantLimits.update(tenants);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() throws Exception {
        try {
            CloseAll.inOrder(syslog, server, publisher, topics);
        } finally {
            log.info("collector stopped");
        }
    }
}
