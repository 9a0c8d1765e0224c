package dev.logpipe.broker.testing;

import dev.logpipe.broker.BrokerConfig;
import dev.logpipe.broker.EmbeddedBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real embedded broker shared by all tests of a class: started on free ports in a fresh temporary directory
 * before the first test, closed and deleted after the last (nested classes share their outer class's broker).
 * Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();
 *
 * @Test
 * void recordsArriveInOrder() throws Exception {
 *     KAFKA.createTopic("orders-in-order", 3);
 *     ... new KafkaProducer<>(Map.of("bootstrap.servers", KAFKA.bootstrapServers(), ...)) ...
 * }
 * }</pre>
 *
 * Tests share the broker, so each uses topic names of its own.
 */
public final class EmbeddedBrokerExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private final Map<String, String> kafkaOverrides;
    private EmbeddedBroker broker;
    private Path dataDir;
    private Class<?> owner;

    public EmbeddedBrokerExtension() {
        this(Map.of());
    }

    /** A broker with extra Kafka settings, for example {@code Map.of("log.retention.ms", "1000")}. */
    public EmbeddedBrokerExtension(Map<String, String> kafkaOverrides) {
        this.kafkaOverrides = Map.copyOf(kafkaOverrides);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        if (broker != null) {
            return; // a nested class: the outer class's broker serves it
        }
        owner = context.getRequiredTestClass();
        dataDir = Files.createTempDirectory("logpipe-broker-");
        try {
            broker = EmbeddedBroker.start(new BrokerConfig(dataDir, 0, 0, kafkaOverrides));
        } catch (IOException | RuntimeException e) {
            deleteRecursively(dataDir);
            throw e;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (broker == null) {
            throw new IllegalStateException(
                    "EmbeddedBrokerExtension must be registered on a static field (@RegisterExtension static final ...)");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (broker == null || context.getRequiredTestClass() != owner) {
            return;
        }
        try {
            broker.close();
        } finally {
            broker = null;
            deleteRecursively(dataDir);
        }
    }

    /** The running broker; only between the class's first and last test. */
    public EmbeddedBroker broker() {
        if (broker == null) {
            throw new IllegalStateException("the broker runs only while the test class runs");
        }
        return broker;
    }

    public String bootstrapServers() {
        return broker().bootstrapServers();
    }

    /** Creates a topic with one replica and no configs and waits until every partition is served. Idempotent. */
    public void createTopic(String name, int partitions) throws IOException, InterruptedException {
        broker().createTopic(name, partitions, 1, Map.of());
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the broker's directory " + dir, e);
        }
    }
}
