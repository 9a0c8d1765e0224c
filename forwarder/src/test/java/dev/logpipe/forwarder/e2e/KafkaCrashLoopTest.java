package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.EmbeddedBrokerExtension;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.LogFile;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kill -9 loop against a real Kafka broker: the forwarder (a child JVM with the Kafka sink) is
 * SIGKILLed at random points while lines keep arriving, and restarted each time. In the end every line
 * is in the topic at least once, a line sent twice carries the same record_id both times, the
 * duplicates stay within what was published after the last watermark write of each killed run, and
 * {@code log_forwarder_lines_replayed_total} (summed over the runs) counts replays without ever exceeding them.
 */
class KafkaCrashLoopTest extends WorkspaceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "fw-kill-loop";
    private static final int KILLS = 8;
    /** At most this many lines per run, written in chunks while the forwarder publishes. */
    private static final int LINES_PER_RUN = 400;

    private static final int LINES_PER_CHUNK = 20;

    @RegisterExtension
    static final EmbeddedBrokerExtension KAFKA = new EmbeddedBrokerExtension();

    @BeforeEach
    void configure() throws Exception {
        KAFKA.createTopic(TOPIC, 1);
        ws.config()
                .set("sink.type", "kafka")
                .set("sink.kafka.bootstrap_servers", KAFKA.bootstrapServers())
                .set("sink.kafka.topic", TOPIC)
                .set("watch.state.flush_interval", "200ms");
    }

    @Test
    void killNineLoopAgainstKafkaLosesNoLineAndReplaysKeepTheirRecordIds() throws Exception {
        long seed = Long.getLong("crashloop.seed", 7L);
        Random random = new Random(seed);
        LogFile app = ws.logFile("app.log");
        int written = 0;
        long replayedCounted = 0;
        for (int run = 0; run < KILLS; run++) {
            int before = written;
            ForwarderProcess p = ws.startAndAwait();
            // Replays of the previous run are sent first; once everything written before is in the topic they
            // are complete and counted, so the scrape just before the kill holds all of them.
            awaitInTopic(before);
            // Lines keep arriving until a random kill point (plain sleeps on purpose: the point is to be random).
            int chunks = 5 + random.nextInt(LINES_PER_RUN / LINES_PER_CHUNK - 5);
            for (int c = 0; c < chunks; c++) {
                app.lines(Lines.numbered(written + 1, written + LINES_PER_CHUNK));
                written += LINES_PER_CHUNK;
                // sleep: pacing: lines keep arriving until the random kill point
                Thread.sleep(15);
            }
            replayedCounted += p.counter("log_forwarder_lines_replayed_total");
            p.kill();
        }
        ForwarderProcess last = ws.startAndAwait();
        awaitInTopic(written);
        replayedCounted += last.counter("log_forwarder_lines_replayed_total");
        last.stop();

        List<String> records = TopicContents.recordLines(
                TopicContents.readAll(KAFKA.bootstrapServers(), TOPIC, Duration.ofSeconds(20)));
        Map<String, String> idOfMessage = new HashMap<>();
        int duplicates = 0;
        for (String r : records) {
            JsonNode json = JSON.readTree(r);
            String message = json.get("message").asText();
            String previous =
                    idOfMessage.putIfAbsent(message, json.get("record_id").asText());
            if (previous != null) {
                duplicates++;
                assertThat(json.get("record_id").asText())
                        .as("a replay of %s keeps its record_id", message)
                        .isEqualTo(previous);
            }
        }
        assertThat(idOfMessage.keySet())
                .as("no line lost (seed %d)", seed)
                .containsExactlyInAnyOrder(Lines.numbered(1, written));
        assertThat(duplicates)
                .as(
                        "duplicates are bounded by what each killed run published after its last "
                                + "watermark write (%d runs of %d lines)",
                        KILLS, LINES_PER_RUN)
                .isLessThanOrEqualTo(KILLS * LINES_PER_RUN);
        // The counter sees replays of acknowledged lines; lines the broker had taken but not yet acknowledged
        // when the process died are duplicates it cannot know about (docs/monitoring.md), never the reverse.
        assertThat(replayedCounted)
                .as("lines_replayed never over-counts (%d duplicates)", duplicates)
                .isLessThanOrEqualTo(duplicates);
        assertThat(replayedCounted)
                .as("lines_replayed counts the replays (%d duplicates)", duplicates)
                .isGreaterThan(0);
    }

    private static void awaitInTopic(int lines) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() ->
                        distinctMessages(TopicContents.readAll(KAFKA.bootstrapServers(), TOPIC, Duration.ofSeconds(20)))
                                        .size()
                                >= lines);
    }

    private static Set<String> distinctMessages(List<ConsumerRecord<String, String>> records) throws Exception {
        Set<String> out = new HashSet<>();
        for (String r : TopicContents.recordLines(records)) {
            out.add(JSON.readTree(r).get("message").asText());
        }
        return out;
    }
}
