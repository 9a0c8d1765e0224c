package dev.logpipe.archive.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.archive.format.RangeSource;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The object store seam's contract on both stores: a local directory and S3 (a real S3Mock in a child JVM). */
@Integration
class ObjectStoreTest {
    @TempDir
    static Path shared;

    static S3MockServer s3mock;
    static int prefixes;

    @BeforeAll
    static void startS3Mock() throws IOException {
        s3mock = S3MockServer.start(shared);
    }

    @AfterAll
    static void stopS3Mock() {
        s3mock.close();
    }

    static Stream<String> stores() {
        return Stream.of("directory", "s3");
    }

    private static ObjectStore store(String kind) throws IOException {
        prefixes++;
        return kind.equals("s3")
                ? new S3Store(s3mock.settings("logpipe/t" + prefixes))
                : new DirectoryStore(Files.createDirectories(shared.resolve("dir" + prefixes)));
    }

    private static Path file(byte[] bytes) throws IOException {
        return Files.write(Files.createTempFile(shared, "object", ".bin"), bytes);
    }

    @ParameterizedTest
    @MethodSource("stores")
    void anObjectPutReadsBackByRanges(String kind) throws IOException {
        byte[] bytes = new byte[300_000];
        new Random(7).nextBytes(bytes);
        try (ObjectStore store = store(kind)) {
            store.put("records/acme/2026-11-20.lpa", file(bytes));

            RangeSource range = store.open("records/acme/2026-11-20.lpa");

            assertThat(range.size()).isEqualTo(bytes.length);
            assertThat(range.read(0, 8)).isEqualTo(java.util.Arrays.copyOfRange(bytes, 0, 8));
            assertThat(range.read(123_456, 1000)).isEqualTo(java.util.Arrays.copyOfRange(bytes, 123_456, 124_456));
            assertThat(range.read(bytes.length - 16, 16))
                    .isEqualTo(java.util.Arrays.copyOfRange(bytes, bytes.length - 16, bytes.length));
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void listShowsKeysUnderAPrefixSortedAndDeleteRemovesOne(String kind) throws IOException {
        try (ObjectStore store = store(kind)) {
            Path f = file(new byte[] {1, 2, 3});
            List<String> keys = new ArrayList<>(List.of(
                    "records/acme/2026-11-21.lpa", "records/acme/2026-11-20.lpa", "records/beta/2026-11-20.lpa"));
            for (String k : keys) {
                store.put(k, f);
            }

            assertThat(store.list("records/acme/"))
                    .containsExactly("records/acme/2026-11-20.lpa", "records/acme/2026-11-21.lpa");
            assertThat(store.delete("records/acme/2026-11-20.lpa")).isTrue();
            assertThat(store.delete("records/acme/2026-11-20.lpa")).isFalse();
            assertThat(store.list("records/"))
                    .containsExactly("records/acme/2026-11-21.lpa", "records/beta/2026-11-20.lpa");
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aMissingObjectIsNamed(String kind) throws IOException {
        try (ObjectStore store = store(kind)) {
            assertThatThrownBy(() -> store.open("records/acme/1999-01-01.lpa"))
                    .isInstanceOf(NoSuchFileException.class)
                    .hasMessageContaining("records/acme/1999-01-01.lpa");
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aPutReplacesAnObjectWhole(String kind) throws IOException {
        try (ObjectStore store = store(kind)) {
            store.put("a/b.lpa", file(new byte[1000]));
            store.put("a/b.lpa", file(new byte[] {9, 9}));

            assertThat(store.open("a/b.lpa").size()).isEqualTo(2);
            assertThat(store.open("a/b.lpa").read(0, 2)).containsExactly(9, 9);
        }
    }

    @Test
    void keysThatCouldEscapeTheStoreAreRefused() throws IOException {
        try (ObjectStore store = store("directory")) {
            assertThatThrownBy(() -> store.put("../x", file(new byte[1])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("../x");
            assertThatThrownBy(() -> store.open("/etc/passwd")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aStoreThatNeverAnswersFailsWithinTheTimeoutNamingTheKey() throws IOException {
        try (ServerSocket silent = new ServerSocket(0);
                S3Store store = new S3Store(new S3Settings(
                        URI.create("http://127.0.0.1:" + silent.getLocalPort()),
                        "us-east-1",
                        "archive",
                        "",
                        true,
                        "test",
                        "test",
                        Duration.ofMillis(800)))) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            long start = System.nanoTime();

            assertThatThrownBy(() -> store.put("records/acme/2026-11-20.lpa", file(new byte[10])))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("put records/acme/2026-11-20.lpa in s3://archive");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }
}
