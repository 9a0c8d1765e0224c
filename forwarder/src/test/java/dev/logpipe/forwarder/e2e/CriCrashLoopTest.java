package dev.logpipe.forwarder.e2e;

import org.junit.jupiter.api.BeforeEach;

/**
 * The kill -9 loop of {@link CrashLoopTest} on a CRI container log file ({@code parser.format: cri}): every
 * fourth line is split into {@code P} pieces with a stderr line between them, so kills land between pieces,
 * and the same guarantees hold: no line lost, replays only from the persisted watermark (never inside a
 * reassembled line), the same record ids, and the offset of a reassembled line is its first piece's. The records
 * are decoded on two parse threads, so a kill also lands while batches wait for them.
 */
class CriCrashLoopTest extends CrashLoopTest {
    @BeforeEach
    @Override
    void configure() {
        ws.config()
                .source(ws.logs(), "app.log*")
                .set("watch.state.flush_interval", FLUSH_INTERVAL.toMillis() + "ms")
                .set("watch.rotate_wait", "1s")
                .set("parser.format", "cri")
                .set("watch.parse_threads", 2); // records decoded on parse threads: the same guarantees
        writer = new RotatingWriter(ws.logs(), 700, 8, RotatingWriter.Framing.CRI);
        kills = 8;
    }
}
