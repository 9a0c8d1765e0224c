package dev.logpipe.broker.tools;

import dev.logpipe.broker.BrokerLogging;
import dev.logpipe.broker.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code logpipe topics list|describe|create}: what {@code kafka-topics.sh} does for logpipe's topics, on
 * kafka-clients' Admin only, against any cluster. {@code create} returns once every partition is served (see
 * {@link Topics}). Exit codes: 0 done, 1 the broker refused or did not answer, 2 invalid arguments.
 */
@Command(
        name = "logpipe topics",
        mixinStandardHelpOptions = true,
        description = "List, describe or create Kafka topics.",
        subcommands = {TopicsCommand.ListTopics.class, TopicsCommand.Describe.class, TopicsCommand.Create.class})
public final class TopicsCommand implements Callable<Integer> {
    static final Duration TIMEOUT = Duration.ofSeconds(15);

    @Option(
            names = "--bootstrap",
            defaultValue = "127.0.0.1:9092",
            scope = CommandLine.ScopeType.INHERIT,
            description = "Kafka bootstrap servers. Default: ${DEFAULT-VALUE}.")
    String bootstrap;

    @Override
    public Integer call() {
        CommandLine.usage(this, System.err);
        return 2;
    }

    public static void main(String[] args) {
        BrokerLogging.forTools();
        System.exit(new CommandLine(new TopicsCommand()).execute(args));
    }

    static Admin admin(String bootstrap) {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) TIMEOUT.toMillis()));
    }

    /** Runs {@code body}, turning the broker's refusals and silences into one line and exit code 1. */
    static int guarded(String what, String bootstrap, AdminCall body) {
        try (Admin admin = admin(bootstrap)) {
            return body.run(admin);
        } catch (ExecutionException e) {
            System.err.println("logpipe topics: " + what + " failed at " + bootstrap + ": "
                    + e.getCause().getMessage());
            return 1;
        } catch (TimeoutException e) {
            System.err.println("logpipe topics: no answer from " + bootstrap + " within " + TIMEOUT.toSeconds()
                    + " s; is the broker running (bin/logpipe broker)?");
            return 1;
        } catch (Exception e) {
            System.err.println("logpipe topics: " + what + " failed at " + bootstrap + ": " + e.getMessage());
            return 1;
        }
    }

    interface AdminCall {
        int run(Admin admin) throws Exception;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "One line per topic: name, partitions.")
    static final class ListTopics implements Callable<Integer> {
        @CommandLine.ParentCommand
        TopicsCommand parent;

        @Override
        public Integer call() {
            return guarded("list", parent.bootstrap, admin -> {
                var names = new TreeSet<>(admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
                Map<String, TopicDescription> d =
                        admin.describeTopics(names).allTopicNames().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                for (String n : names) {
                    System.out.println(
                            n + "\tpartitions=" + d.get(n).partitions().size());
                }
                return 0;
            });
        }
    }

    @Command(
            name = "describe",
            mixinStandardHelpOptions = true,
            description = "Partitions (leader, replicas, in-sync, end offset) and the topic's own configuration.")
    static final class Describe implements Callable<Integer> {
        @CommandLine.ParentCommand
        TopicsCommand parent;

        @Parameters(paramLabel = "TOPIC")
        String topic;

        @Override
        public Integer call() {
            return guarded("describe " + topic, parent.bootstrap, admin -> {
                TopicDescription d = admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .get(topic);
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (TopicPartitionInfo p : d.partitions()) {
                    latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
                }
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                        admin.listOffsets(latest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                System.out.println(
                        "topic " + topic + " partitions=" + d.partitions().size());
                for (TopicPartitionInfo p : d.partitions()) {
                    System.out.println("  partition " + p.partition() + " leader="
                            + (p.leader() == null ? "none" : p.leader().id()) + " replicas=" + ids(p.replicas())
                            + " isr=" + ids(p.isr())
                            + " end_offset="
                            + ends.get(new TopicPartition(topic, p.partition())).offset());
                }
                ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                Config config = admin.describeConfigs(List.of(r))
                        .all()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .get(r);
                Map<String, String> own = new TreeMap<>();
                config.entries().stream()
                        .filter(e -> e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
                        .forEach(e -> own.put(e.name(), e.value()));
                own.forEach((k, v) -> System.out.println("  config " + k + "=" + v));
                return 0;
            });
        }

        private static List<Integer> ids(List<Node> nodes) {
            List<Integer> out = new ArrayList<>();
            nodes.forEach(n -> out.add(n.id()));
            return out;
        }
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = "Creates a topic (if missing) and returns once every partition is served.")
    static final class Create implements Callable<Integer> {
        @CommandLine.ParentCommand
        TopicsCommand parent;

        @Parameters(paramLabel = "TOPIC")
        String topic;

        @Option(names = "--partitions", defaultValue = "6", description = "Default: ${DEFAULT-VALUE}.")
        int partitions;

        @Option(names = "--replication-factor", defaultValue = "1", description = "Default: ${DEFAULT-VALUE}.")
        short replicationFactor;

        @Option(
                names = "--config",
                paramLabel = "KEY=VALUE",
                description = "A topic setting, e.g. retention.ms=86400000.")
        Map<String, String> configs = new HashMap<>();

        @Override
        public Integer call() {
            if (partitions < 1 || replicationFactor < 1) {
                System.err.println("logpipe topics: --partitions and --replication-factor must be at least 1");
                return 2;
            }
            return guarded("create " + topic, parent.bootstrap, admin -> {
                Topics.create(admin, topic, partitions, replicationFactor, configs, TIMEOUT);
                System.out.println("topic " + topic + " ready partitions=" + partitions);
                return 0;
            });
        }
    }
}
