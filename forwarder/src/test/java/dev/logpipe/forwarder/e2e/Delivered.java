package dev.logpipe.forwarder.e2e;

import static org.awaitility.Awaitility.await;

import dev.logpipe.testkit.NdjsonTail;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * What the forwarder's file sink has delivered so far: the records of the sink file, read incrementally
 * while the forwarder is still appending. Every complete line must be a valid record.
 */
final class Delivered {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final NdjsonTail tail;

    Delivered(Path sinkFile) {
        this.tail = new NdjsonTail(sinkFile);
    }

    /** Every record so far, in the order the sink wrote them. */
    List<SinkRecord> records() {
        tail.poll();
        return tail.records().stream().map(SinkRecord::of).toList();
    }

    /** Only the records written since the previous call of this method or {@link #records}. */
    List<SinkRecord> poll() {
        return tail.poll().stream().map(SinkRecord::of).toList();
    }

    List<String> messages() {
        return records().stream().map(SinkRecord::message).toList();
    }

    /** Waits until the sink holds at least {@code n} records; returns all of them. */
    List<SinkRecord> awaitAtLeast(int n) {
        return awaitRecords(r -> r.size() >= n, "at least " + n + " records");
    }

    /** Waits until {@code condition} holds for the records so far; returns them. */
    List<SinkRecord> awaitRecords(Predicate<List<SinkRecord>> condition, String what) {
        await("sink to hold " + what)
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> condition.test(records()));
        return records();
    }

    /** Waits until some record carries {@code message}; returns all records. */
    List<SinkRecord> awaitMessage(String message) {
        return awaitRecords(
                r -> r.stream().anyMatch(x -> x.message().equals(message)),
                "a record with message \"" + message + "\"");
    }
}
