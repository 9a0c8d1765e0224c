package dev.logpipe.server.standalone;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for tests: one request, the whole answer. */
public final class Http {
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public record Answer(int status, String body) {}

    private Http() {}

    public static Answer get(String url, String key) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(url)).GET(), key);
    }

    public static Answer post(String url, String key, String body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)), key);
    }

    public static Answer send(String method, String url, String key, String body) throws Exception {
        return send(
                HttpRequest.newBuilder(URI.create(url))
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body)),
                key);
    }

    private static Answer send(HttpRequest.Builder b, String key) throws Exception {
        b.timeout(Duration.ofSeconds(30));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }
}
