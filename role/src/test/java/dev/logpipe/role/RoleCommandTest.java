package dev.logpipe.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** A role's command line is its name, its loader and its start: options and exit codes come from the shell. */
class RoleCommandTest {
    @TempDir
    Path dir;

    @Command(name = "logpipe test-role", mixinStandardHelpOptions = true, description = "a role for the test")
    static final class TestRole extends RoleCommand<String> {
        final List<String> started = new ArrayList<>();

        @Override
        protected String load(Path file) throws ConfigException {
            try {
                String text = Files.readString(file).strip();
                if (!text.startsWith("listen:")) {
                    throw new ConfigException("listen: missing");
                }
                return text;
            } catch (IOException e) {
                throw new ConfigException(file + ": cannot read: " + e.getMessage());
            }
        }

        @Override
        protected RoleLifecycle.Role start(String config) throws IOException {
            started.add(config);
            throw new IOException("port in use: " + config);
        }
    }

    static final class Unnamed extends RoleCommand<String> {
        @Override
        protected String load(Path file) {
            return "";
        }

        @Override
        protected RoleLifecycle.Role start(String config) {
            return () -> {};
        }
    }

    private record Run(int code, String err) {}

    private Run run(TestRole role, String... args) {
        PrintStream before = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = new CommandLine(role).execute(args);
            return new Run(code, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(before);
        }
    }

    @Test
    void checkConfigValidatesWithoutStartingAndABadFileExitsTwoNamingTheKey() throws Exception {
        Path good = Files.writeString(dir.resolve("good.yaml"), "listen: 127.0.0.1:0\n");
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "nothing: here\n");
        TestRole role = new TestRole();

        assertThat(run(role, "--config", good.toString(), "--check-config").code())
                .isZero();
        assertThat(role.started).isEmpty();

        Run refused = run(role, "--config", bad.toString());
        assertThat(refused.code()).isEqualTo(2);
        assertThat(refused.err()).contains("logpipe test-role: configuration error: listen: missing");
        assertThat(role.started).isEmpty();
    }

    @Test
    void aRoleThatCannotStartExitsThreeWithItsCause() throws Exception {
        Path good = Files.writeString(dir.resolve("good.yaml"), "listen: 127.0.0.1:0\n");
        TestRole role = new TestRole();
        Run failed = run(role, "--config", good.toString());
        assertThat(failed.code()).isEqualTo(3);
        assertThat(failed.err()).contains("logpipe test-role: cannot start: port in use: listen: 127.0.0.1:0");
        assertThat(role.started).containsExactly("listen: 127.0.0.1:0");
    }

    @Test
    void theConfigFileIsRequired() {
        Run missing = run(new TestRole());
        assertThat(missing.code()).isEqualTo(2); // picocli's usage error
        assertThat(missing.err()).contains("--config");
    }

    @Test
    void aCommandMustNameItsRole() {
        assertThatThrownBy(() -> new Unnamed().name())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no @Command");
    }
}
