package dev.logpipe.archive.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArchiveSettingsLoaderTest {
    private static final Path BASE = Path.of("/etc/logpipe");
    private static final Path DATA = Path.of("/var/lib/logpipe");

    private static ArchiveSettings read(String yaml, Map<String, String> env) throws ConfigException {
        ConfigNode root = ConfigNode.fromYaml(yaml, "test.yaml");
        ArchiveSettings s = ArchiveSettingsLoader.read(root.child("archive"), BASE, DATA, env::get);
        root.rejectUnknownKeys();
        return s;
    }

    @Test
    void withoutASectionTheArchiveIsALocalDirectoryUnderTheDataDirectory() throws ConfigException {
        ArchiveSettings s = read("{}", Map.of());

        assertThat(s.s3()).isEmpty();
        assertThat(s.directory()).isEqualTo(DATA.resolve("archive"));
        assertThat(s.catalog()).isEqualTo(DATA.resolve("archive-catalog.json"));
        assertThat(s.cacheDays()).isEqualTo(4);
        assertThat(s.cacheBytes()).isEqualTo(8L << 30);
        assertThat(s.restoreSettle()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.grace()).isEqualTo(Duration.ofHours(2));
        assertThat(s.checkInterval()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.describe()).isEqualTo("directory /var/lib/logpipe/archive");
    }

    @Test
    void anS3StoreTakesItsSecretFromTheNamedEnvironmentVariableAndDefaultsToPathStyleWithAnEndpoint()
            throws ConfigException {
        ArchiveSettings s = read("""
                archive:
                  store: s3
                  s3:
                    endpoint: http://127.0.0.1:9090
                    bucket: logs
                    prefix: /prod/
                    access_key_id: AKIA1
                    secret_access_key_env: ARCHIVE_SECRET
                """, Map.of("ARCHIVE_SECRET", "s3cr3t"));

        assertThat(s.s3()).isPresent();
        assertThat(s.s3().get().endpoint()).isEqualTo(URI.create("http://127.0.0.1:9090"));
        assertThat(s.s3().get().pathStyle()).isTrue();
        assertThat(s.s3().get().prefix()).isEqualTo("prod");
        assertThat(s.s3().get().secretAccessKey()).isEqualTo("s3cr3t");
        assertThat(s.s3().get().toString()).doesNotContain("s3cr3t");
        assertThat(s.describe()).isEqualTo("s3 http://127.0.0.1:9090 bucket=logs prefix=prod");
    }

    @Test
    void mistakesFailNamingTheKey() {
        assertThatThrownBy(() -> read("archive:\n  store: s3\n", Map.of()))
                .hasMessageStartingWith("archive.s3: required with store: s3");
        assertThatThrownBy(() -> read("archive:\n  s3: {bucket: b}\n", Map.of()))
                .hasMessageStartingWith("archive.s3: only with store: s3");
        assertThatThrownBy(() -> read("archive:\n  store: gcs\n", Map.of()))
                .hasMessageStartingWith("archive.store: directory or s3");
        assertThatThrownBy(() -> read(
                        "archive:\n  store: s3\n  s3: {bucket: b, secret_access_key_env: NOPE, access_key_id: a}\n",
                        Map.of()))
                .hasMessageStartingWith("archive.s3.secret_access_key_env: the environment variable NOPE is not set");
        assertThatThrownBy(() -> read("archive:\n  store: s3\n  s3: {bucket: b, access_key_id: a}\n", Map.of()))
                .hasMessageStartingWith(
                        "archive.s3.secret_access_key: access_key_id and secret_access_key go " + "together");
        assertThatThrownBy(() -> read("archive:\n  store: s3\n  s3: {bucket: b, endpoint: 'ftp://x'}\n", Map.of()))
                .hasMessageStartingWith("archive.s3.endpoint:");
        assertThatThrownBy(() -> read("archive:\n  cache_days: 0\n", Map.of()))
                .hasMessageStartingWith("archive.cache_days:");
        assertThatThrownBy(() -> read("archive:\n  cache_bytes: 1KiB\n", Map.of()))
                .hasMessageStartingWith("archive.cache_bytes:");
        assertThatThrownBy(() -> read("archive:\n  block_size: 1MiB\n", Map.of()))
                .hasMessageContaining("archive.block_size");
    }
}
