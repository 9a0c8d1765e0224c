package dev.logpipe.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.testkit.Integration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/logpipe} itself, run from a copy of it beside prebuilt (empty) jars, so it builds nothing, with a
 * {@code java} on the PATH that prints the command line it was given instead of starting a JVM.
 */
@Integration
class LauncherTest {
    @TempDir
    Path root;

    @Test
    void everyJvmTheLauncherStartsExitsAtItsFirstOutOfMemoryErrorWhateverItsOptions() throws Exception {
        Path bin = Files.createDirectories(root.resolve("bin"));
        Files.copy(Path.of("../bin/logpipe"), bin.resolve("logpipe"));
        for (String jar : List.of(
                "server/target/logpipe.jar",
                "broker/target/logpipe-broker.jar",
                "collector/target/logpipe-collector.jar",
                "indexer/target/logpipe-indexer.jar",
                "query/target/logpipe-query.jar")) {
            Files.createDirectories(root.resolve(jar).getParent());
            Files.write(root.resolve(jar), new byte[0]);
        }
        Path fake = Files.createDirectories(root.resolve("fake"));
        Files.writeString(fake.resolve("java"), "#!/bin/sh\necho \"java $*\"\n");
        Files.setPosixFilePermissions(fake.resolve("java"), PosixFilePermissions.fromString("rwxr-xr-x"));
        for (List<String> args : List.of(
                List.of("standalone"),
                List.of("keys", "list"),
                List.of("broker"),
                List.of("collector", "--config", "c.yaml"),
                List.of("indexer", "--config", "i.yaml"),
                List.of("query", "--config", "q.yaml"),
                List.of("topics", "list"),
                List.of("consume", "t"))) {
            assertThat(run(fake, args, Map.of())).as("%s", args).startsWith("java -XX:+ExitOnOutOfMemoryError -");
        }
        assertThat(run(fake, List.of("indexer", "--config", "i.yaml"), Map.of("LOGPIPE_INDEXER_JAVA_OPTS", "-Xmx2g")))
                .startsWith("java -XX:+ExitOnOutOfMemoryError -Xmx2g -jar ");
    }

    private String run(Path fake, List<String> args, Map<String, String> env) throws Exception {
        List<String> command = new java.util.ArrayList<>(
                List.of("bash", root.resolve("bin/logpipe").toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", fake + ":" + System.getenv("PATH"));
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.strip();
    }
}
