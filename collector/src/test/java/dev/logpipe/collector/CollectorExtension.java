package dev.logpipe.collector;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real broker and a real collector on topics {@code PREFIX.records} and {@code PREFIX.dead-letter} (and the
 * collector config's {@code extraYaml}), for the whole test class. Register it on a static field.
 */
final class CollectorExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private final EmbeddedBrokerExtension kafka = new EmbeddedBrokerExtension();
    private final String topicPrefix;
    private final String extraYaml;
    private CollectorFixture collector;
    private CompatClient client;

    CollectorExtension(String topicPrefix) {
        this(topicPrefix, "");
    }

    CollectorExtension(String topicPrefix, String extraYaml) {
        this.topicPrefix = topicPrefix;
        this.extraYaml = extraYaml;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        kafka.beforeAll(context);
        collector = CollectorFixture.start(kafka.bootstrapServers(), topicPrefix, extraYaml);
        client = new CompatClient(collector);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        kafka.beforeEach(context);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (collector != null) {
                collector.close();
            }
        } finally {
            collector = null;
            kafka.afterAll(context);
        }
    }

    CollectorFixture collector() {
        return collector;
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    int port() {
        return collector.port();
    }

    CompatClient client() {
        return client;
    }

    /** The records published so far whose message starts with {@code prefix}. */
    List<JsonNode> records(String prefix) throws IOException {
        return CompatClient.withMessagePrefix(kafka.bootstrapServers(), topicPrefix + ".records", prefix);
    }

    /** Every record published so far. */
    List<JsonNode> allRecords() throws IOException {
        return CompatClient.records(kafka.bootstrapServers(), topicPrefix + ".records");
    }

    /** Every dead letter published so far. */
    List<JsonNode> deadLetters() throws IOException {
        return CompatClient.deadLetters(kafka.bootstrapServers(), topicPrefix + ".dead-letter");
    }
}
