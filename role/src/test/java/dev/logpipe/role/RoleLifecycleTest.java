package dev.logpipe.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class RoleLifecycleTest {
    private static final Path FILE = Path.of("role.yaml");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CopyOnWriteArrayList<Thread> hooks = new CopyOnWriteArrayList<>();
    private final RoleLifecycle lifecycle = new RoleLifecycle(
            "logpipe test",
            new PrintStream(out, true),
            new PrintStream(err, true),
            hooks::add,
            RoleLifecycle.STOP_DEADLINE);

    @Test
    void invalidConfigurationExitsTwoNamingTheKey() throws Exception {
        int code = lifecycle.run(
                FILE,
                false,
                f -> {
                    throw new ConfigException("listen: not host:port");
                },
                c -> () -> {});

        assertThat(code).isEqualTo(2);
        assertThat(err()).isEqualTo("logpipe test: configuration error: listen: not host:port\n");
    }

    @Test
    void checkConfigStopsBeforeStarting() throws Exception {
        AtomicBoolean started = new AtomicBoolean();
        int code = lifecycle.run(FILE, true, f -> "ok", c -> {
            started.set(true);
            return () -> {};
        });

        assertThat(code).isZero();
        assertThat(started).isFalse();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("configuration ok: role.yaml\n");
    }

    @Test
    void aStartFailureExitsThreeWithItsMessage() throws Exception {
        int code = lifecycle.run(FILE, false, f -> "ok", c -> {
            throw new IOException("data/index/acme/2026-12-01: corrupt");
        });

        assertThat(code).isEqualTo(3);
        assertThat(err()).isEqualTo("logpipe test: cannot start: data/index/acme/2026-12-01: corrupt\n");
        assertThat(hooks).isEmpty();
    }

    @Test
    void aDefectAtStartPropagates() {
        assertThatThrownBy(() -> lifecycle.run(FILE, false, f -> "ok", c -> {
                    throw new NullPointerException("bug");
                }))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void theShutdownHookClosesTheRoleAndTheRunEndsWithZero() throws Exception {
        AtomicBoolean closed = new AtomicBoolean();
        CompletableFuture<Integer> code = running(() -> closed.set(true));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> hooks.size() == 1);
        assertThat(code).isNotDone();

        hooks.get(0).start(); // what the JVM does on SIGTERM
        assertThat(code.get()).isZero();
        assertThat(closed).isTrue();
        assertThat(hooks.get(0).getName()).isEqualTo("logpipe-test-shutdown");
    }

    @Test
    void anErrorWhileClosingIsReportedAndTheRunStillEnds() throws Exception {
        CompletableFuture<Integer> code = running(() -> {
            throw new IOException("commit failed");
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> hooks.size() == 1);

        hooks.get(0).start();
        assertThat(code.get()).isZero();
        assertThat(err()).isEqualTo("logpipe test: error while stopping: java.io.IOException: commit failed\n");
    }

    @Test
    void aRoleThatFailsOnItsOwnEndsTheRunWithFour() throws Exception {
        AtomicReference<String> failure = new AtomicReference<>();
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> {
            try {
                return lifecycle.run(FILE, false, f -> "ok", c -> new RoleLifecycle.Role() {
                    @Override
                    public String failure() {
                        return failure.get();
                    }

                    @Override
                    public void close() {}
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> hooks.size() == 1);
        assertThat(code).isNotDone();

        failure.set("kafka: topic logpipe.records deleted");
        assertThat(code.get()).isEqualTo(4);
        assertThat(err()).isEqualTo("logpipe test: stopped: kafka: topic logpipe.records deleted\n");
    }

    private CompletableFuture<Integer> running(RoleLifecycle.Role role) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return lifecycle.run(FILE, false, f -> "ok", c -> role);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
