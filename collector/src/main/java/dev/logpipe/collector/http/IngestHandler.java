package dev.logpipe.collector.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.collector.admission.InFlightBytes;
import dev.logpipe.collector.admission.TenantLimits;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.ingest.BodyDecoder;
import dev.logpipe.collector.ingest.IngestProcessor;
import dev.logpipe.collector.ingest.IngestResult;
import dev.logpipe.collector.metrics.CollectorMetrics;
import dev.logpipe.collector.publish.KafkaPublisher;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/v1/logs} (DESIGN.md section 5): authenticate (401), admission before the body is read
 * (413 body cap, 429 tenant rate limit, 503 in-flight bound), decode, process, publish with acks=all, and answer
 * 200 only once the broker committed every accepted record and every dead letter. Independent of the HTTP
 * server: {@link #handle} takes the request's parts and returns the answer.
 */
public final class IngestHandler {
    private static final Logger log = LoggerFactory.getLogger(IngestHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** At most this many per-line errors are listed in a response. */
    static final int MAX_ERRORS = 100;

    /** An HTTP answer: status, JSON body, and a Retry-After in seconds (0: none). */
    public record Answer(int status, String body, long retryAfterSeconds) {
    }

    /** What the handler needs to read a request. */
    public interface Body {
        java.io.InputStream stream() throws IOException;
    }

    private final CollectorConfig config;
    private final ApiKeys keys;
    private final TenantLimits limits;
    private final InFlightBytes inFlight;
    private final BodyDecoder decoder;
    private final IngestProcessor processor;
    private final KafkaPublisher publisher;
    private final CollectorMetrics metrics;
    private final Clock clock;
    private final AtomicBoolean brokerFailing = new AtomicBoolean();

    public IngestHandler(CollectorConfig config, ApiKeys keys, TenantLimits limits, InFlightBytes inFlight,
                         IngestProcessor processor, KafkaPublisher publisher, CollectorMetrics metrics, Clock clock) {
        this.config = config;
        this.keys = keys;
        this.limits = limits;
        this.inFlight = inFlight;
        this.decoder = new BodyDecoder(config.limits().maxBodyBytes(), config.limits().maxDecodedBytes());
        this.processor = processor;
        this.publisher = publisher;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** @param certificateSubject the verified client certificate's subject (canonical), or null */
    public Answer handle(String authorization, String certificateSubject, long contentLength, String contentEncoding,
                         Body body) {
        Answer a = answer(authorization, certificateSubject, contentLength, contentEncoding, body);
        metrics.request(a.status());
        return a;
    }

    private Answer answer(String authorization, String certificateSubject, long contentLength,
                          String contentEncoding, Body body) {
        CollectorConfig.Tenant tenant = keys.authenticate(authorization, certificateSubject);
        if (tenant == null) {
            return error(401, certificateSubject == null
                    ? "a valid API key is required: Authorization: Bearer <key>"
                    : "client certificate " + certificateSubject + " is not mapped to a tenant (cert_subjects), and "
                            + "no valid API key was given", 0);
        }
        long maxBody = config.limits().maxBodyBytes();
        if (contentLength > maxBody) {
            return error(413, "the body is " + contentLength + " bytes, more than limits.max_body_bytes (" + maxBody
                    + ")", 0);
        }
        long initial = contentLength >= 0 ? contentLength : Math.min(maxBody, 64 * 1024);
        InFlightBytes.Reservation held = inFlight.reserve(initial);
        if (held == null) {
            return error(503, "the collector is at its in-flight bound (limits.in_flight_bytes); retry", 1);
        }
        try (held) {
            TenantLimits.Decision d = limits.admit(tenant.id(), Math.max(0, contentLength));
            if (!d.admitted()) {
                metrics.rateLimited(tenant.id(), d.limit());
                long seconds = Math.max(1, (d.retryAfter().toMillis() + 999) / 1000);
                return error(429, "tenant " + tenant.id() + " is over its " + d.limit() + " limit; retry after "
                        + seconds + " s", seconds);
            }
            BodyDecoder.Decoded decoded;
            try {
                decoded = decoder.read(body.stream(), contentEncoding, held::growTo);
            } catch (BodyDecoder.Rejected e) {
                return error(e.status(), e.getMessage(), e.status() == 503 ? 1 : 0);
            } catch (IOException | RuntimeException e) {
                return error(400, "the body could not be read: " + e.getMessage(), 0);
            }
            long bodyBytes = decoded.body().length;
            IngestResult result;
            try {
                // What processing produces (records, dead letters) is held against the in-flight bound too.
                result = processor.process(tenant, decoded.body(), clock.instant(),
                        produced -> held.growTo(bodyBytes + produced));
            } catch (IngestProcessor.OverBound e) {
                return error(503, "the collector is at its in-flight bound (limits.in_flight_bytes); retry", 1);
            }
            limits.charge(tenant.id(), result.accepted() + result.deadLetters().size(), decoded.wireBytes(),
                    d.charged());
            return publish(tenant, result);
        }
    }

    private Answer publish(CollectorConfig.Tenant tenant, IngestResult result) {
        List<KafkaPublisher.Outgoing> out = new ArrayList<>(result.messages().size() + 1);
        for (IngestResult.Message m : result.messages()) {
            out.add(new KafkaPublisher.Outgoing(config.kafka().topic(), m.key(), m.value()));
        }
        for (IngestResult.DeadLetter d : result.deadLetters()) {
            out.add(new KafkaPublisher.Outgoing(config.kafka().deadLetterTopic(), tenant.id(), deadLetter(tenant, d)));
        }
        long t0 = System.nanoTime();
        try {
            publisher.publish(out);
        } catch (KafkaPublisher.Unavailable e) {
            if (brokerFailing.compareAndSet(false, true)) {
                log.warn("Kafka at {} is not committing records: {}. Answering 503 with Retry-After until it does",
                        config.kafka().bootstrapServers(), e.getMessage());
            }
            return error(503, "the broker did not commit the records (" + e.getMessage() + "); nothing is claimed, "
                    + "retry", 1);
        }
        if (brokerFailing.compareAndSet(true, false)) {
            log.info("Kafka at {} commits records again", config.kafka().bootstrapServers());
        }
        metrics.published(result, System.nanoTime() - t0);
        ObjectNode body = JSON.createObjectNode();
        body.put("accepted", result.accepted());
        body.put("dead_lettered", result.deadLetters().size());
        body.put("stage", "DURABLE_IN_BROKER");
        ArrayNode errors = body.putArray("errors");
        for (IngestResult.DeadLetter d : result.deadLetters()) {
            if (errors.size() == MAX_ERRORS) {
                body.put("errors_truncated", true);
                break;
            }
            errors.addObject().put("line", d.line()).put("reason", d.reason().name()).put("detail", d.detail());
        }
        return new Answer(200, body.toString(), 0);
    }

    private byte[] deadLetter(CollectorConfig.Tenant tenant, IngestResult.DeadLetter d) {
        ObjectNode n = JSON.createObjectNode();
        n.put("reason", d.reason().name());
        n.put("detail", d.detail());
        n.put("tenant_id", tenant.id());
        n.put("line", d.line());
        n.put("observed_time", clock.instant().toString());
        if (d.raw() != null) {
            n.put("raw", d.raw());
        } else {
            n.put("raw_withheld", true);
        }
        try {
            return JSON.writeValueAsBytes(n);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    private static Answer error(int status, String reason, long retryAfterSeconds) {
        ObjectNode n = JSON.createObjectNode();
        n.put("error", reason);
        return new Answer(status, n.toString(), retryAfterSeconds);
    }
}
