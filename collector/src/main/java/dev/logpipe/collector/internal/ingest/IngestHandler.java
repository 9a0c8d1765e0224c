package dev.logpipe.collector.internal.ingest;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.collector.auth.ApiKeys;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.internal.admission.InFlightBytes;
import dev.logpipe.collector.internal.admission.RequestSlots;
import dev.logpipe.collector.internal.admission.TenantLimits;
import dev.logpipe.collector.internal.metrics.CollectorMetrics;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/v1/logs} (docs/collector.md#admission): authenticate (401, also for two credentials; 429 once the
 * client address failed too often), the body
 * cap on Content-Length (413), a request slot of the tenant, the client address and the collector (429/503 at
 * once: nobody waits for a slot), the tenant's rate limit (429), the in-flight bound (503), then the body read as
 * a stream at a minimum rate and within a deadline (408) and processed line by line ({@link IngestRun}); 200 only
 * once the broker committed every accepted record and dead letter. Independent of the HTTP server.
 */
public final class IngestHandler {
    private static final Logger log = LoggerFactory.getLogger(IngestHandler.class);
    /** A refused request's unread body is discarded for at most this long before the connection is closed. */
    private static final Duration DRAIN_DEADLINE = Duration.ofSeconds(5);

    /** The answer header listing the redactions of the records taken, by rule: {@code card_number=2, jwt=1}. */
    public static final String REDACTED_HEADER = "Logpipe-Redacted";
    /** The answer header counting field values kept under a name of their own (docs/record-format.md#flattening). */
    public static final String FIELD_COLLISIONS_HEADER = "Logpipe-Field-Collisions";

    /**
     * An HTTP answer: status, JSON body, a Retry-After in seconds (0: none), whether the connection must be closed
     * (the body was not read to its end), and headers of its own ({@link #REDACTED_HEADER}, ...).
     */
    public record Answer(
            int status,
            String contentType,
            byte[] body,
            long retryAfterSeconds,
            boolean close,
            Map<String, String> headers) {
        public Answer {
            headers = Map.copyOf(headers);
        }

        public Answer(int status, String contentType, byte[] body, long retryAfterSeconds, boolean close) {
            this(status, contentType, body, retryAfterSeconds, close, Map.of());
        }

        public static Answer json(int status, String body, long retryAfterSeconds, boolean close) {
            return new Answer(
                    status, "application/json", body.getBytes(StandardCharsets.UTF_8), retryAfterSeconds, close);
        }

        /** The body as text (UTF-8). */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The same answer, closing the connection after it. */
        Answer closing() {
            return new Answer(status, contentType, body, retryAfterSeconds, true, headers);
        }

        /**
         * The same answer telling, in headers every route carries, what changed in the records taken: the
         * redactions by rule and the field collisions (none: no header).
         */
        Answer reporting(IngestResult result) {
            Map<String, String> h = new TreeMap<>(headers);
            if (!result.redactions().isEmpty()) {
                StringBuilder b = new StringBuilder();
                new TreeMap<>(result.redactions()).forEach((rule, n) -> {
                    b.append(b.isEmpty() ? "" : ", ").append(rule).append('=').append(n);
                });
                h.put(REDACTED_HEADER, b.toString());
            }
            if (result.fieldCollisions() > 0) {
                h.put(FIELD_COLLISIONS_HEADER, Integer.toString(result.fieldCollisions()));
            }
            return new Answer(status, contentType, body, retryAfterSeconds, close, h);
        }
    }

    private final CollectorConfig config;
    private final ApiKeys keys;
    private final TenantLimits limits;
    private final RequestSlots slots;
    private final InFlightBytes inFlight;
    private final BodyDecoder decoder;
    private final IngestRun run;
    private final Supplier<Outlet> outlets;
    private final CollectorMetrics metrics;
    private final Clock clock;
    private final LongSupplier nanos;
    private final AtomicBoolean brokerFailing = new AtomicBoolean();

    /** The three admission checks a request passes before its body is read, in the order it meets them. */
    public record Admission(RequestSlots slots, TenantLimits limits, InFlightBytes inFlight) {}

    /** The wall clock (observed times, rate windows) and the monotonic nanoseconds (read deadlines). */
    public record Clocks(Clock clock, LongSupplier nanos) {}

    public IngestHandler(
            CollectorConfig config,
            ApiKeys keys,
            Admission admission,
            IngestProcessor processor,
            Supplier<Outlet> outlets,
            CollectorMetrics metrics,
            Clocks clocks) {
        this.config = config;
        this.keys = keys;
        this.limits = admission.limits();
        this.slots = admission.slots();
        this.inFlight = admission.inFlight();
        this.decoder =
                new BodyDecoder(config.limits().maxBodyBytes(), config.limits().maxDecodedBytes());
        this.run = new IngestRun(processor);
        this.outlets = outlets;
        this.metrics = metrics;
        this.clock = clocks.clock();
        this.nanos = clocks.nanos();
    }

    public Answer handle(IngestRequest request) {
        return handle(request, NativeProtocol.INSTANCE);
    }

    /** Serves one request of the route {@code p}: its body decoded by {@code p}, answered in its shape. */
    public Answer handle(IngestRequest request, Protocol p) {
        Answer a;
        try {
            a = answer(request, p);
        } catch (RuntimeException e) {
            log.error("ingest request failed unexpectedly; answering 500", e);
            a = p.refused(500, "internal error: " + e.getClass().getSimpleName(), 0, true);
        }
        metrics.request(a.status());
        metrics.route(p.route(), a.status());
        return a;
    }

    /**
     * Serves a body whose tenant a listener already knows (a syslog listener's configured tenant or its client
     * certificate): the same caps, rate limit, in-flight bound and processing as an HTTP request, without the
     * credential check. Counted in the route metrics only (it is not an HTTP request).
     */
    public Answer handleAs(CollectorConfig.Tenant tenant, String remoteAddress, byte[] body, Protocol p) {
        IngestRequest request = new IngestRequest(
                List.of(), null, remoteAddress, body.length, null, () -> new ByteArrayInputStream(body));
        Answer a;
        try {
            RequestSlots.Acquired acquired = slots.acquire(tenant.id(), remoteAddress);
            if (acquired.slot() == null) {
                metrics.refused(acquired.full().name().toLowerCase(Locale.ROOT));
                a = p.refused(
                        acquired.full() == RequestSlots.Cap.GLOBAL ? 503 : 429,
                        "request cap " + acquired.full().name().toLowerCase(Locale.ROOT) + " is full",
                        1,
                        false);
            } else {
                try (RequestSlots.Slot slot = acquired.slot()) {
                    a = admitted(tenant, request, new Drain(request), p);
                }
            }
        } catch (RuntimeException e) {
            log.error("ingest of a {} batch failed unexpectedly", p.route(), e);
            a = p.refused(500, "internal error: " + e.getClass().getSimpleName(), 0, true);
        }
        metrics.route(p.route(), a.status());
        return a;
    }

    private Answer answer(IngestRequest request, Protocol p) {
        ApiKeys.Outcome who =
                keys.authenticate(request.authorizations(), request.certificateSubject(), request.remoteAddress());
        if (who.tenant() == null) {
            return p.refused(
                    who.status(),
                    who.problem(),
                    who.status() == 429 ? AuthFailures.retryAfterSeconds(who.retryAfter()) : 0,
                    true);
        }
        CollectorConfig.Tenant tenant = who.tenant();
        CollectorConfig.Limits l = config.limits();
        if (request.contentLength() > l.maxBodyBytes()) {
            return p.refused(
                    413,
                    "the body is " + request.contentLength() + " bytes, more than limits.max_body_bytes ("
                            + l.maxBodyBytes() + ")",
                    0,
                    true);
        }
        RequestSlots.Acquired acquired = slots.acquire(tenant.id(), request.remoteAddress());
        if (acquired.slot() == null) {
            metrics.refused(acquired.full().name().toLowerCase(Locale.ROOT));
            return switch (acquired.full()) {
                case TENANT ->
                    p.refused(
                            429,
                            "tenant " + tenant.id() + " has " + l.maxRequestsPerTenant() + " requests "
                                    + "in progress (limits.max_requests_per_tenant); retry",
                            1,
                            true);
                case ADDRESS ->
                    p.refused(
                            429,
                            "this client address has " + l.maxRequestsPerAddress() + " requests in "
                                    + "progress (limits.max_requests_per_address); retry",
                            1,
                            true);
                case GLOBAL ->
                    p.refused(
                            503,
                            "the collector is serving " + l.maxConcurrentRequests() + " requests "
                                    + "(limits.max_concurrent_requests); retry",
                            1,
                            true);
            };
        }
        try (RequestSlots.Slot slot = acquired.slot()) {
            return admitted(tenant, request, new Drain(request), p);
        }
    }

    private Answer admitted(CollectorConfig.Tenant tenant, IngestRequest request, Drain rest, Protocol p) {
        TenantLimits.Refusal refused = limits.admit(tenant.id());
        if (refused != null) {
            return rest.answer(rateLimited(tenant, refused.limit(), refused.retryAfter(), null, p));
        }
        long fixed = BodyDecoder.workingBytes(request.contentEncoding());
        InFlightBytes.Reservation held = inFlight.reserve(fixed);
        if (held == null) {
            return rest.answer(p.refused(
                    503, "the collector is at its in-flight bound (limits.in_flight_bytes); retry", 1, false));
        }
        Answer a;
        try (held;
                TenantLimits.Charge charge = limits.open(tenant.id())) {
            a = run(tenant, request, rest, held, new IngestRun.Allowance(charge, fixed, held::growTo), p);
        }
        // Any discarding of the rest of the body happens after the memory and the tokens are given back.
        return rest.answer(a);
    }

    /** @param held the request's reservation, which {@code allowance} grows and the answer grows further */
    private Answer run(
            CollectorConfig.Tenant tenant,
            IngestRequest request,
            Drain rest,
            InFlightBytes.Reservation held,
            IngestRun.Allowance allowance,
            Protocol p) {
        IngestRun.Outcome outcome;
        long t0 = System.nanoTime();
        TenantLimits.Charge charge = allowance.charge();
        try (BodyDecoder.Body body =
                decoder.open(rest.open(), request.contentEncoding(), charge::takeBytes, p.textBody())) {
            outcome = run.run(tenant, p.format(), body, clock.instant(), allowance, outlets.get());
        } catch (BodyException e) {
            return p.refused(e.status(), e.getMessage(), 0, e.status() == 408 || e.status() == 413);
        } catch (IOException e) {
            if (timedOut(e)) {
                return p.refused(
                        408,
                        "the client sent nothing for limits.idle_timeout ("
                                + config.limits().idleTimeout() + ") while sending its body",
                        0,
                        true);
            }
            return p.refused(400, "the body could not be read: " + e.getMessage(), 0, true);
        } catch (Outlet.Unavailable e) {
            return brokerDown(e, p);
        }
        brokerUp();
        metrics.published(outcome.result(), System.nanoTime() - t0);
        metrics.routeRecords(p.route(), outcome.result());
        long answer = outcome.stop() == IngestRun.Stop.COMPLETE ? p.answerBytes(outcome) : 0;
        if (answer > 0 && !held.growTo(held.bytes() + answer)) {
            return p.refused(
                    503,
                    "the collector is at its in-flight bound (limits.in_flight_bytes) and cannot hold "
                            + "the answer; the records were taken, a resend is de-duplicated",
                    1,
                    false);
        }
        Answer a = switch (outcome.stop()) {
            case COMPLETE -> p.answer(outcome, 200, null, 0);
            case RATE_LIMITED ->
                rateLimited(tenant, outcome.limit(), limits.retryAfter(tenant.id(), outcome.limit()), outcome, p);
            case OVER_BOUND ->
                p.answer(outcome, 503, "the collector reached its in-flight bound " + "(limits.in_flight_bytes)", 1);
        };
        return a.reporting(outcome.result());
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private Answer rateLimited(
            CollectorConfig.Tenant tenant, String limit, Duration retryAfter, IngestRun.Outcome partial, Protocol p) {
        metrics.rateLimited(tenant.id(), limit);
        long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        String reason = "tenant " + tenant.id() + " is over its " + limit + " limit; retry after " + seconds + " s";
        if (partial == null) {
            return p.refused(429, reason, seconds, false);
        }
        return p.answer(partial, 429, reason, seconds);
    }

    private Answer brokerDown(Outlet.Unavailable e, Protocol p) {
        if (brokerFailing.compareAndSet(false, true)) {
            log.warn(
                    "Kafka at {} is not committing records: {}. Answering 503 with Retry-After until it does",
                    config.kafka().bootstrapServers(),
                    e.getMessage());
        }
        return p.refused(
                503,
                "the broker did not commit the records (" + e.getMessage() + "); nothing is claimed, " + "retry",
                1,
                true);
    }

    private void brokerUp() {
        if (brokerFailing.compareAndSet(true, false)) {
            log.info("Kafka at {} commits records again", config.kafka().bootstrapServers());
        }
    }

    /**
     * The request's body as the client sends it: opened once, paced (minimum rate, deadline), and on a refusal
     * discarded up to {@code limits.max_body_bytes} within {@link #DRAIN_DEADLINE} so that the client reads the
     * answer on a kept-alive connection, or else the connection is closed. A client that waits for
     * {@code 100 Continue} before sending is never asked for a body that is refused before it was read.
     */
    private final class Drain {
        private final IngestRequest request;
        private InputStream raw;

        Drain(IngestRequest request) {
            this.request = request;
        }

        InputStream open() throws IOException {
            CollectorConfig.Limits l = config.limits();
            raw = request.body().open();
            return new PacedInputStream(raw, nanos, l.minBodyRate(), Duration.ofSeconds(1), l.bodyTimeout());
        }

        /** {@code a}, closing the connection unless the rest of the body could be discarded. */
        Answer answer(Answer a) {
            if (a.status() == 200 || a.close() || discarded()) {
                return a;
            }
            return a.closing();
        }

        private boolean discarded() {
            long max = config.limits().maxBodyBytes();
            if (request.contentLength() > max) {
                return false;
            }
            if (raw == null && request.expectsContinue()) {
                return false; // reading would ask the client for a body we refuse: answer and close instead
            }
            try (InputStream in = new PacedInputStream(
                    raw != null ? raw : request.body().open(),
                    nanos,
                    config.limits().minBodyRate(),
                    Duration.ofSeconds(1),
                    DRAIN_DEADLINE)) {
                byte[] buf = new byte[16 * 1024];
                long total = 0;
                for (int n; (n = in.read(buf)) > 0; ) {
                    if ((total += n) > max) {
                        return false;
                    }
                }
                return true;
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }
    }
}
