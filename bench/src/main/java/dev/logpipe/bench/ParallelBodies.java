package dev.logpipe.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** Sends request bodies kept in files, {@code clients} at a time, each body once, in order of taking. */
final class ParallelBodies {
    /** What sends one body; throws to fail the whole run. */
    interface Sender {
        void send(Path body) throws Exception;
    }

    private ParallelBodies() {}

    /** Returns once every body was sent; the first failure of any client fails the call. */
    static void send(List<Path> bodies, int clients, Sender sender) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService senders = Executors.newFixedThreadPool(clients);
        List<Future<Void>> sent = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            sent.add(senders.submit(() -> {
                for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
                    sender.send(bodies.get(i));
                }
                return null;
            }));
        }
        senders.shutdown();
        try {
            for (Future<Void> f : sent) {
                f.get();
            }
        } finally {
            senders.shutdownNow();
        }
    }
}
