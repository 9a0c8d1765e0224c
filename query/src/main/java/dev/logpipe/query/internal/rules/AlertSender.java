package dev.logpipe.query.internal.rules;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends alerts to a Prometheus Alertmanager ({@code POST /api/v2/alerts}: a JSON array of labels, annotations,
 * startsAt, endsAt, generatorURL) and/or a webhook (Alertmanager's webhook body: {@code status} and {@code alerts}).
 * A send that fails is logged and counted, never retried here: active alerts are sent again at the next resend.
 * Blocking, at most 5 s per destination. Shared by the evaluators a {@link RuleSets} builds one after another (the
 * evaluators' threads and a rebuild's resolves call it); thread-safe.
 */
final class AlertSender {
    private static final Logger log = LoggerFactory.getLogger(AlertSender.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** One alert as sent. */
    record Outgoing(ObjectNode labels, ObjectNode annotations, String startsAt, String endsAt, String generatorUrl) {
        boolean resolved(java.time.Instant now) {
            return !java.time.Instant.parse(endsAt).isAfter(now);
        }
    }

    private final Optional<URI> alertmanager;
    private final Optional<URI> webhook;
    private final HttpClient http;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();

    AlertSender(Optional<URI> alertmanager, Optional<URI> webhook) {
        this.alertmanager = alertmanager;
        this.webhook = webhook;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    void send(List<Outgoing> alerts, java.time.Instant now) {
        if (alerts.isEmpty()) {
            return;
        }
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        for (Outgoing o : alerts) {
            ObjectNode a = array.addObject();
            a.set("labels", o.labels());
            a.set("annotations", o.annotations());
            a.put("startsAt", o.startsAt());
            a.put("endsAt", o.endsAt());
            a.put("generatorURL", o.generatorUrl());
        }
        alertmanager.ifPresent(u -> post(u.resolve(path(u, "api/v2/alerts")), array.toString()));
        if (webhook.isPresent()) {
            for (String status : List.of("firing", "resolved")) {
                ObjectNode body = JsonNodeFactory.instance.objectNode();
                body.put("version", "4");
                body.put("status", status);
                body.put("receiver", "logpipe");
                ArrayNode list = body.putArray("alerts");
                for (int i = 0; i < alerts.size(); i++) {
                    if (alerts.get(i).resolved(now) == status.equals("resolved")) {
                        ObjectNode a = ((ObjectNode) array.get(i)).deepCopy();
                        a.put("status", status);
                        list.add(a);
                    }
                }
                if (!list.isEmpty()) {
                    post(webhook.get(), body.toString());
                }
            }
        }
    }

    private static String path(URI base, String rest) {
        String p = base.getPath() == null ? "" : base.getPath();
        return (p.endsWith("/") ? p : p + "/") + rest;
    }

    private void post(URI to, String body) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(to)
                            .timeout(TIMEOUT)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                failures.incrementAndGet();
                log.warn("alerts to {} answered {}: {}", to, r.statusCode(), abbreviate(r.body()));
            } else {
                sent.incrementAndGet();
            }
        } catch (IOException e) {
            failures.incrementAndGet();
            log.warn("alerts to {} failed: {}", to, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    long failures() {
        return failures.get();
    }

    long sent() {
        return sent.get();
    }
}
