package dev.logpipe.collector.internal.ingest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** An {@link Outlet} that keeps what it is given, in memory (unit tests of the ingest path without a broker). */
final class CollectingOutlet implements Outlet {
    /** One message handed to the records topic. */
    record Message(String tenant, String key, byte[] value, int records) {
        List<String> lines() {
            return List.of(new String(value, StandardCharsets.UTF_8).split("\n"));
        }
    }

    final List<Message> records = new ArrayList<>();
    final List<String> deadLetters = new ArrayList<>();
    int awaited;

    @Override
    public void record(String tenant, String key, byte[] value, int records) {
        this.records.add(new Message(tenant, key, value, records));
    }

    @Override
    public void deadLetter(String tenant, byte[] value) {
        deadLetters.add(new String(value, StandardCharsets.UTF_8));
    }

    @Override
    public void await() {
        awaited++;
    }

    int recordCount() {
        return records.stream().mapToInt(Message::records).sum();
    }
}
