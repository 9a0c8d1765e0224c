package dev.logpipe.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Typed reading of a YAML tree: values, defaults, and errors that start with the key path. */
class ConfigNodeTest {
    private static ConfigNode yaml(String text) throws ConfigException {
        return ConfigNode.fromYaml(text, "test.yaml");
    }

    @Test
    void anEmptyDocumentIsAnEmptyMappingSoEveryDefaultApplies() throws ConfigException {
        ConfigNode root = yaml("");
        assertThat(root.string("name", "fallback")).isEqualTo("fallback");
        assertThat(root.integer("n", 7, 0, 10)).isEqualTo(7);
        assertThat(root.child("nested").bool("on", true)).isTrue();
        assertThat(root.children("list")).isEmpty();
    }

    @Test
    void aTopLevelThatIsNotAMappingIsRefused() {
        assertThatThrownBy(() -> yaml("- a\n- b\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config: the top level must be a mapping of keys, was array");
    }

    @Test
    void invalidYamlAndDuplicateKeysNameTheOriginAndLine() {
        assertThatThrownBy(() -> yaml("a: [1, 2\n")).hasMessageStartingWith("config test.yaml is not valid YAML");
        assertThatThrownBy(() -> yaml("a: 1\nb: 2\na: 3\n"))
                .hasMessageContaining("Duplicate field 'a'")
                .hasMessageContaining("(line 3)");
    }

    @Test
    void nestedKeysAndListItemsCarryTheirFullPathIntoErrors() throws ConfigException {
        ConfigNode root = yaml("sink:\n  http:\n    retries: many\nsources:\n  - path: /a\n  - path: 5\n    x: [1]\n");
        assertThatThrownBy(() -> root.child("sink").child("http").integer("retries", 3, 0, 10))
                .hasMessage("sink.http.retries: must be a whole number, was \"many\"");
        List<ConfigNode> sources = root.children("sources");
        assertThat(sources).hasSize(2);
        assertThat(sources.get(1).keyPath("x")).isEqualTo("sources[1].x");
        assertThatThrownBy(() -> sources.get(1).strings("x"))
                .hasMessage("sources[1].x[0]: must be a string, was number");
    }

    @Test
    void aKeyNoReaderAskedForIsUnknownAndNamed() throws ConfigException {
        ConfigNode root = yaml("listen: 127.0.0.1:80\nlsiten: typo\n");
        root.string("listen", null);
        assertThatThrownBy(root::rejectUnknownKeys).hasMessage("lsiten: unknown key");
    }

    @Test
    void wrongShapesAreRefusedWithWhatWasFound() throws ConfigException {
        ConfigNode root = yaml("m: 5\nl: {a: 1}\ns: [x]\nb: \"yes\"\nmap: {a: [1]}\n");
        assertThatThrownBy(() -> root.child("m")).hasMessage("m: must be a mapping, was number");
        assertThatThrownBy(() -> root.children("l")).hasMessage("l: must be a list, was object");
        assertThatThrownBy(() -> root.string("s", null)).hasMessage("s: must be a string, was array");
        assertThatThrownBy(() -> root.bool("b", false)).hasMessage("b: must be true or false, was \"yes\"");
        assertThatThrownBy(() -> root.stringMap("map")).hasMessage("map.a: must be a string, was array");
    }

    @Test
    void requiredStringsMustBeThereAndNotBlank() throws ConfigException {
        ConfigNode root = yaml("blank: \"  \"\n");
        assertThatThrownBy(() -> root.requiredString("blank")).hasMessage("blank: is required");
        assertThatThrownBy(() -> root.requiredString("absent")).hasMessage("absent: is required");
    }

    @Test
    void aSingleStringCountsAsAListOfOne() throws ConfigException {
        assertThat(yaml("p: \"*.log\"\n").strings("p")).containsExactly("*.log");
        assertThat(yaml("p: [a, b]\n").strings("p")).containsExactly("a", "b");
    }

    @Test
    void integersOutsideTheirRangeNameTheRange() throws ConfigException {
        ConfigNode root = yaml("n: 11\nbig: 99999999999999999999\n");
        assertThatThrownBy(() -> root.integer("n", 0, 1, 10)).hasMessage("n: must be between 1 and 10, was 11");
        assertThatThrownBy(() -> root.integer("big", 0, 1, 10)).hasMessageStartingWith("big: must be a whole number");
    }

    @Test
    void durationsHaveUnitsBoundsAndZero() throws ConfigException {
        ConfigNode root = yaml("a: 250ms\nb: 5m\nc: 0\nd: 5\ne: 2s\nf: 25h\ng: 1.5s\n");
        assertThat(root.duration("a", null, Duration.ZERO)).isEqualTo(Duration.ofMillis(250));
        assertThat(root.duration("b", null, Duration.ZERO)).isEqualTo(Duration.ofMinutes(5));
        assertThat(root.duration("c", null, Duration.ZERO)).isEqualTo(Duration.ZERO);
        assertThatThrownBy(() -> root.duration("d", null, Duration.ZERO))
                .hasMessage("d: must be a duration like 250ms, 1s, 5m or 0, was \"5\"");
        assertThatThrownBy(() -> root.duration("e", null, Duration.ofSeconds(3)))
                .hasMessage("e: must be >= 3s, was 2s");
        assertThatThrownBy(() -> root.duration("f", null, Duration.ZERO)).hasMessage("f: must be <= 24h, was 25h");
        assertThatThrownBy(() -> root.duration("g", null, Duration.ZERO))
                .hasMessageStartingWith("g: must be a duration");
    }

    @Test
    void byteSizesTakeBinaryUnitsAndNeverOverflow() throws ConfigException {
        ConfigNode root = yaml("a: 64KiB\nb: 1 mib\nc: 65536\nd: 2g\ne: 99999999999GiB\nf: 1.5MiB\n");
        assertThat(root.bytes("a", 0, 0, Long.MAX_VALUE)).isEqualTo(65536);
        assertThat(root.bytes("b", 0, 0, Long.MAX_VALUE)).isEqualTo(1 << 20);
        assertThat(root.bytes("c", 0, 0, Long.MAX_VALUE)).isEqualTo(65536);
        assertThat(root.bytes("d", 0, 0, Long.MAX_VALUE)).isEqualTo(2L << 30);
        assertThatThrownBy(() -> root.bytes("e", 0, 0, 1L << 40))
                .hasMessage("e: must be between 0 and 1099511627776 bytes, was 99999999999GiB");
        assertThatThrownBy(() -> root.bytes("f", 0, 0, Long.MAX_VALUE))
                .hasMessage("f: must be a size like 65536, 64KiB or 1MiB, was \"1.5MiB\"");
    }

    @Test
    void choicesAreCaseInsensitiveAndListTheAllowedValues() throws ConfigException {
        ConfigNode root = yaml("mode: Block\nbad: sometimes\n");
        assertThat(root.choice("mode", Mode.class, Mode.DROP_OLDEST)).isEqualTo(Mode.BLOCK);
        assertThatThrownBy(() -> root.choice("bad", Mode.class, Mode.BLOCK))
                .hasMessage("bad: must be one of block, drop_oldest, was \"sometimes\"");
    }

    enum Mode {
        BLOCK,
        DROP_OLDEST
    }

    @Test
    void pathsResolveAgainstTheConfigFilesDirectory(@TempDir Path dir) throws ConfigException {
        ConfigNode root = yaml("rel: data/../state\nabs: /var/x\nempty: \"\"\n");
        assertThat(root.path("rel", dir, null)).isEqualTo(dir.resolve("state").toAbsolutePath());
        assertThat(root.path("abs", dir, null)).isEqualTo(Path.of("/var/x"));
        assertThat(root.path("absent", dir, dir)).isEqualTo(dir);
        assertThatThrownBy(() -> root.path("empty", dir, null)).hasMessage("empty: must not be empty");
    }

    @Test
    void stringMapsKeepTheirOrder() throws ConfigException {
        Map<String, String> m = yaml("labels: {b: 2, a: x, c: true}\n").stringMap("labels");
        assertThat(m).containsExactly(Map.entry("b", "2"), Map.entry("a", "x"), Map.entry("c", "true"));
    }

    @Test
    void addressesNeedAHostAndAPortInRange() throws ConfigException {
        assertThat(ConfigNode.parseAddress("listen", "127.0.0.1:9100").getPort())
                .isEqualTo(9100);
        assertThat(ConfigNode.parseAddress("listen", "[::1]:80").getAddress().isLoopbackAddress())
                .isTrue();
        assertThatThrownBy(() -> ConfigNode.parseAddress("listen", "9100"))
                .hasMessage("listen: must be host:port like 127.0.0.1:9100, was \"9100\"");
        assertThatThrownBy(() -> ConfigNode.parseAddress("listen", "h:x"))
                .hasMessage("listen: port must be a number, was \"h:x\"");
        assertThatThrownBy(() -> ConfigNode.parseAddress("listen", "h:70000"))
                .hasMessage("listen: port must be between 0 and 65535, was 70000");
    }

    @Test
    void aMissingConfigFileIsNamedWithItsAbsolutePath(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.yaml");
        assertThatThrownBy(() -> ConfigNode.readFile(missing))
                .hasMessage("config file " + missing.toAbsolutePath() + " does not exist");
        Path present = Files.writeString(dir.resolve("ok.yaml"), "a: 1\n");
        assertThat(ConfigNode.readFile(present)).isEqualTo("a: 1\n");
    }
}
