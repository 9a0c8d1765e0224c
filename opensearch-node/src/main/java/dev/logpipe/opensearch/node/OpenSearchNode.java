package dev.logpipe.opensearch.node;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

/**
 * One OpenSearch 2.19 node in this JVM (the tests' and the benchmark's real OpenSearch): a single-node cluster bound
 * to 127.0.0.1 with HTTP (Netty 4) on {@code --port}, the common analysis module (pattern tokenizer, pattern_capture),
 * its home and data under {@code --home}, no security plugin, no bootstrap checks (those run only in OpenSearch's own
 * launcher, which this is not). Prints {@code opensearch started} on standard output once the node accepts requests;
 * SIGTERM closes the node and exits. Started by {@link OpenSearchProcess}, or by hand:
 *
 * <pre>
 *   java -Xms1g -Xmx2g -cp 'opensearch-node/target/logpipe-opensearch-node.jar:opensearch-node/target/lib/*' \
 *     dev.logpipe.opensearch.node.OpenSearchNode --home /tmp/os-home --port 9200
 * </pre>
 */
public final class OpenSearchNode {
    private OpenSearchNode() {}

    public static void main(String[] args) throws Exception {
        Path home = null;
        int port = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--port" -> port = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (home == null || port < 0) {
            throw new IllegalArgumentException("usage: OpenSearchNode --home DIR --port N");
        }
        // OpenSearch reads these folders if they exist and refuses some when they are missing
        for (String d : List.of("config", "data", "logs", "plugins", "modules")) {
            Files.createDirectories(home.resolve(d));
        }
        Settings settings = Settings.builder()
                .put("cluster.name", "logpipe")
                .put("node.name", "node-0")
                .put("path.home", home.toString())
                .put("path.data", home.resolve("data").toString())
                .put("path.logs", home.resolve("logs").toString())
                .put("discovery.type", "single-node")
                .put("network.host", "127.0.0.1")
                .put("http.port", port)
                .put("transport.port", "0")
                // the disk of a shared bench machine may be fuller than the default watermarks allow
                .put("cluster.routing.allocation.disk.threshold_enabled", false)
                .build();
        Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "node-0");
        Node node = new ClassPathNode(env).start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                node.close();
                            } catch (Exception e) {
                                e.printStackTrace();
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "opensearch-close"));
        System.out.println("opensearch started on 127.0.0.1:" + port);
        System.out.flush();
        stopped.await();
    }

    /** A node with Netty 4 HTTP and the common analysis module on its class path, as OpenSearch's tests build one. */
    private static final class ClassPathNode extends Node {
        ClassPathNode(Environment env) {
            super(env, List.of(Netty4Plugin.class, CommonAnalysisPlugin.class), true);
        }
    }
}
