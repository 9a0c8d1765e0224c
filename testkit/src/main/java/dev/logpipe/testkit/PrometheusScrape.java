package dev.logpipe.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One scrape of a Prometheus text endpoint: every sample by its series (metric name plus labels as
 * written, e.g. {@code log_forwarder_lag_bytes{path="/x"}}). {@link #value} of a series that is absent
 * is an {@link AssertionError} naming what was there, so a renamed metric fails loudly instead of reading 0.
 */
public final class PrometheusScrape {
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Map<String, Double> samples;

    private PrometheusScrape(Map<String, Double> samples) {
        this.samples = samples;
    }

    /** GETs {@code http://127.0.0.1:port/metrics}; fails the test on any error or non-200 answer. */
    public static PrometheusScrape of(int port) {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build();
        try {
            HttpResponse<String> resp = CLIENT.send(req, HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) {
                throw new AssertionError("GET " + req.uri() + " answered " + resp.statusCode() + ": " + resp.body());
            }
            return parse(resp.body());
        } catch (IOException e) {
            throw new AssertionError("GET " + req.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Parses the text exposition format (comment lines skipped; timestamps, if any, ignored). */
    public static PrometheusScrape parse(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('}');
            int space = line.indexOf(' ', brace < 0 ? 0 : brace);
            if (space < 0) {
                throw new AssertionError("unparseable metrics line: " + line);
            }
            String series = line.substring(0, space);
            String[] rest = line.substring(space + 1).trim().split(" ");
            out.put(series, Double.parseDouble(rest[0]));
        }
        return new PrometheusScrape(out);
    }

    /** The value of one series, e.g. {@code log_forwarder_truncations_total}. */
    public double value(String series) {
        Double v = samples.get(series);
        if (v == null) {
            throw new AssertionError("no series " + series + " in the scrape; it has " + samples.keySet());
        }
        return v;
    }

    /** A counter's value as a whole number. */
    public long counter(String series) {
        return Math.round(value(series));
    }

    public Map<String, Double> samples() {
        return Map.copyOf(samples);
    }
}
