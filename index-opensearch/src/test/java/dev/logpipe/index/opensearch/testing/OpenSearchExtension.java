package dev.logpipe.index.opensearch.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.opensearch.node.OpenSearchProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A real OpenSearch 2.19 node for the tests of this module: started once per test JVM in a child JVM of its own class
 * path ({@link OpenSearchProcess}), on first use, and stopped when the JVM's tests are done. A test takes the
 * {@link Node} as a parameter. A test may stop the node and start it again ({@link Node#kill}, {@link Node#restart}):
 * the tests of a JVM share it, so such a test leaves it running.
 */
public final class OpenSearchExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(OpenSearchExtension.class);

    /** The running node: its address, a small JSON client, and its process to stop and start again. */
    public static final class Node {
        private final String base;
        private final HttpClient http;
        private final ObjectMapper json;
        private final AtomicReference<OpenSearchProcess> process;

        private Node(OpenSearchProcess process) {
            this.base = process.base();
            this.http = HttpClient.newHttpClient();
            this.json = new ObjectMapper();
            this.process = new AtomicReference<>(process);
        }

        /** {@code http://127.0.0.1:<port>}, the same across {@link #restart}s. */
        public String base() {
            return base;
        }

        public HttpClient http() {
            return http;
        }

        public ObjectMapper json() {
            return json;
        }

        /** Sends a request with a JSON body (null: none); answers the status and the parsed body. */
        public Answer send(String method, String path, Object body) throws IOException, InterruptedException {
            HttpRequest.BodyPublisher publisher = body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body));
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                    .method(method, publisher)
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(60))
                    .build();
            HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(r.statusCode(), json.readTree(r.body()));
        }

        /** {@code kill -9} of the node's JVM: its clients find the port closed until {@link #restart}. */
        public void kill() throws InterruptedException {
            process.get().kill();
        }

        /** Starts the node again on its data and port and waits until it is green; nothing if it runs. */
        public void restart() throws IOException, InterruptedException {
            if (!process.get().isAlive()) {
                process.set(process.get().restart(Duration.ofMinutes(3)));
            }
        }

        void close() {
            process.get().close();
        }
    }

    /** An answer of the node. */
    public record Answer(int status, JsonNode body) {}

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
        return p.getParameter().getType() == Node.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext c) {
        return c.getRoot()
                .getStore(NS)
                .getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class)
                .node();
    }

    /** The child process, closed by JUnit with the root context. */
    private record Running(Node node) implements ExtensionContext.Store.CloseableResource {
        static Running start() {
            try {
                Path home = Files.createTempDirectory("logpipe-opensearch-test");
                OpenSearchProcess p = OpenSearchProcess.start(
                        home,
                        OpenSearchProcess.classPathOfThisBuild(),
                        List.of("-Xms512m", "-Xmx512m", "-XX:+UseSerialGC"),
                        Duration.ofMinutes(3));
                return new Running(new Node(p));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("the OpenSearch node for the tests did not start: " + e, e);
            }
        }

        @Override
        public void close() {
            node.close();
        }
    }
}
