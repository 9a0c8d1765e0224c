package dev.logpipe.server.demo;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes realistic, growing log files for the demo: plain-text services (Logback-style lines, Java stack traces)
 * under {@code text/} and a JSON-lines service with structured fields under {@code json/}; a file past
 * {@code rotateBytes} is renamed to {@code NAME.log.1} and started anew; every {@code burstEvery} one service has a
 * few seconds of errors. The first start backfills {@code backfill} of history. One owned thread; close idempotent.
 */
public final class DemoLogs implements AutoCloseable {
    static final String[] TEXT_SERVICES = {"api-gateway", "payments", "auth", "search-worker"};
    private static final DateTimeFormatter TS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS").withZone(ZoneOffset.UTC);
    private static final String[] PATHS = {
        "/api/v1/orders",
        "/api/v1/cart",
        "/api/v1/users/me",
        "/api/v1/search",
        "/healthz",
        "/api/v1/payments",
        "/api/v1/login"
    };
    private static final String[] USERS = {"u-1042", "u-2231", "u-3379", "u-4410", "u-5120", "u-6001", "u-7777"};

    private final Path dir;
    private final Clock clock;
    private final Random random;
    private final long rotateBytes;
    private final Duration burstEvery;
    private final AtomicLong lines = new AtomicLong();
    private ScheduledExecutorService thread;
    private Instant burstUntil = Instant.EPOCH;
    private String burstService = "payments";
    private Instant nextBurst;

    public DemoLogs(Path dir, Clock clock, long seed, long rotateBytes, Duration burstEvery) {
        this.dir = dir;
        this.clock = clock;
        this.random = new Random(seed);
        this.rotateBytes = rotateBytes;
        this.burstEvery = burstEvery;
    }

    public Path textDir() {
        return dir.resolve("text");
    }

    public Path jsonDir() {
        return dir.resolve("json");
    }

    /** Backfills on a first start, then writes about {@code perSecond} lines a second until closed. */
    public synchronized DemoLogs start(Duration backfill, int perSecond) throws IOException {
        Files.createDirectories(textDir());
        Files.createDirectories(jsonDir());
        Instant now = clock.instant();
        nextBurst = now.plus(Duration.ofSeconds(20));
        if (!Files.exists(dir.resolve(".backfilled"))) {
            int n = (int) Math.min(50_000, backfill.toSeconds() * 3);
            for (int i = 0; i < n; i++) {
                Instant at = now.minus(backfill).plusMillis(backfill.toMillis() * i / Math.max(1, n));
                writeOne(at, (i / 400) % 9 == 4 && i % 3 == 0);
            }
            Files.writeString(dir.resolve(".backfilled"), now.toString());
        }
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "demo-log-writer");
            t.setDaemon(true);
            return t;
        });
        long periodMicros = 1_000_000L / Math.max(1, perSecond);
        thread.scheduleAtFixedRate(this::tick, periodMicros, periodMicros, TimeUnit.MICROSECONDS);
        return this;
    }

    private synchronized void tick() {
        try {
            Instant now = clock.instant();
            if (now.isAfter(nextBurst)) {
                burstUntil = now.plusSeconds(3 + random.nextInt(4));
                burstService = TEXT_SERVICES[random.nextInt(TEXT_SERVICES.length)];
                nextBurst = now.plus(burstEvery).plusSeconds(random.nextInt(30));
            }
            writeOne(now, now.isBefore(burstUntil));
        } catch (IOException | RuntimeException e) {
            // a full disk or a removed directory: the demo pauses, the next tick tries again
        }
    }

    public long linesWritten() {
        return lines.get();
    }

    void writeOne(Instant at, boolean burst) throws IOException {
        if (random.nextInt(4) == 0) {
            append(jsonDir().resolve("checkout.log"), jsonLine(at, burst));
        } else {
            String service =
                    burst && random.nextBoolean() ? burstService : TEXT_SERVICES[random.nextInt(TEXT_SERVICES.length)];
            append(textDir().resolve(service + ".log"), textLine(at, service, burst && service.equals(burstService)));
        }
        lines.incrementAndGet();
    }

    private String textLine(Instant at, String service, boolean burst) {
        String ts = TS.format(at);
        String thread = "http-nio-" + (1 + random.nextInt(8));
        int roll = random.nextInt(100);
        if (burst || roll < 2) {
            String trace = stackTrace(service);
            return ts + " ERROR [" + thread + "] " + logger(service) + " - " + errorMessage(service) + "\n" + trace;
        }
        if (roll < 8) {
            return ts + " WARN  [" + thread + "] " + logger(service) + " - slow upstream call to "
                    + pick(new String[] {"ledger", "fraud-check", "inventory", "user-db"}) + " took "
                    + (800 + random.nextInt(4000)) + " ms (budget 750 ms)\n";
        }
        if (roll < 20) {
            return ts + " DEBUG [" + thread + "] " + logger(service) + " - cache "
                    + (random.nextBoolean() ? "hit" : "miss") + " key=" + pick(USERS) + ":profile\n";
        }
        return ts + " INFO  [" + thread + "] " + logger(service) + " - " + pick(new String[] {"GET", "POST", "PUT"})
                + " " + pick(PATHS) + " status=" + pick(new String[] {"200", "200", "200", "201", "204", "404"})
                + " took_ms=" + (2 + random.nextInt(180)) + " user=" + pick(USERS) + "\n";
    }

    private String jsonLine(Instant at, boolean burst) {
        boolean error = burst ? random.nextInt(3) == 0 : random.nextInt(40) == 0;
        String level = error ? "ERROR" : random.nextInt(10) == 0 ? "WARN" : "INFO";
        int took = error ? 2000 + random.nextInt(3000) : 5 + random.nextInt(level.equals("WARN") ? 2000 : 300);
        String order = "CO-" + (1000 + random.nextInt(9000));
        String msg = error
                ? "order " + order + " failed: payment declined by upstream (gateway timeout)"
                : level.equals("WARN") ? "order " + order + " slow checkout" : "order " + order + " placed";
        return String.format(
                Locale.ROOT,
                "{\"time\":\"%s\",\"level\":\"%s\",\"message\":\"%s\","
                        + "\"service\":\"checkout\",\"trace_id\":\"%032x\",\"order_id\":\"%s\",\"user_id\":\"%s\","
                        + "\"took_ms\":%d,\"status\":%d,\"region\":\"%s\"}%n",
                at.toString(),
                level,
                msg,
                random.nextLong() & Long.MAX_VALUE,
                order,
                pick(USERS),
                took,
                error ? 502 : 200,
                pick(new String[] {"eu-west-1", "us-east-1"}));
    }

    private String errorMessage(String service) {
        return switch (service) {
            case "payments" ->
                "charge failed for invoice INV-" + (10000 + random.nextInt(90000)) + ": upstream timeout after 5000 ms";
            case "auth" -> "token validation failed: signature expired for user " + pick(USERS);
            case "search-worker" -> "index batch rejected: shard search-" + random.nextInt(6) + " unavailable";
            default -> "request failed: connection reset by peer (upstream payments:8443)";
        };
    }

    private String stackTrace(String service) {
        String pkg = "com.example." + service.replace("-", "");
        return "java.util.concurrent.TimeoutException: upstream did not answer within 5000 ms\n"
                + "\tat " + pkg + ".client.UpstreamClient.call(UpstreamClient.java:" + (80 + random.nextInt(40)) + ")\n"
                + "\tat " + pkg + ".Handler.handle(Handler.java:57)\n"
                + "\tat org.eclipse.jetty.server.Server.handle(Server.java:516)\n"
                + "\tat java.base/java.lang.Thread.run(Thread.java:840)\n";
    }

    private static String logger(String service) {
        return "c.e." + service.replace("-", "") + ".Handler";
    }

    private String pick(String[] xs) {
        return xs[random.nextInt(xs.length)];
    }

    private void append(Path file, String text) throws IOException {
        if (Files.exists(file) && Files.size(file) > rotateBytes) {
            Files.move(file, file.resolveSibling(file.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
        }
        try (BufferedWriter w = Files.newBufferedWriter(
                file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            w.write(text);
        }
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.shutdownNow();
            thread = null;
        }
    }
}
