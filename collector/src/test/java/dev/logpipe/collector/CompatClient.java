package dev.logpipe.collector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.TopicContents;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Raw HTTP requests to a collector's compatible routes, and the records topic read back. */
final class CompatClient {
    static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final CollectorFixture collector;

    CompatClient(CollectorFixture collector) {
        this.collector = collector;
    }

    /** {@code headers}: name, value, name, value, ... */
    HttpResponse<byte[]> send(String method, String path, byte[] body, String... headers)
            throws IOException, InterruptedException {
        URI uri = collector.url(path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    static JsonNode json(HttpResponse<byte[]> r) throws IOException {
        return JSON.readTree(r.body());
    }

    static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    static List<JsonNode> records(String bootstrap, String topic) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : TopicContents.recordLines(TopicContents.readAll(bootstrap, topic, Duration.ofSeconds(20)))) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    static List<JsonNode> withMessagePrefix(String bootstrap, String topic, String prefix) throws IOException {
        return records(bootstrap, topic).stream()
                .filter(r -> r.get("message").asText().startsWith(prefix))
                .toList();
    }

    static List<JsonNode> deadLetters(String bootstrap, String topic) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (var m : TopicContents.readAll(bootstrap, topic, Duration.ofSeconds(20))) {
            out.add(JSON.readTree(m.value()));
        }
        return out;
    }
}
