package dev.logpipe.server.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.ConfigLoader;
import dev.logpipe.forwarder.config.ForwarderConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log-forwarder config a first start prints is one the forwarder loads, and its records are searchable by it. */
class FirstStartTest {
    @TempDir
    Path dir;

    @Test
    void thePrintedForwarderConfigSetsAServiceAndReadsTheLinesTimestamp() throws Exception {
        Files.createDirectories(dir.resolve("logs"));
        ForwarderConfig c = new ConfigLoader(dir)
                .parse(
                        FirstStart.forwarderConfig("http://127.0.0.1:7070")
                                // the key is read from LOGPIPE_API_KEY when the forwarder starts; this JVM has none
                                .replace("token_env: LOGPIPE_API_KEY", "token: test-key-test-key"),
                        "banner");
        assertThat(c.transform().addFields()).containsEntry("service", "my-app");
        assertThat(c.transform().eventTime().field()).isEqualTo("ts");
        assertThat(c.transform().eventTime().layout().name()).isEqualTo("LOG4J");
        assertThat(c.transform().extractPattern()).contains("(?P<ts>").contains("(?P<level>");
    }
}
