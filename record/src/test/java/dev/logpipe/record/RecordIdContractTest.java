package dev.logpipe.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Record ids are a contract across releases: a forwarder or collector upgraded mid-stream must give a replayed
 * line the id it had before, or the indexer's upsert keeps both copies. These values were computed once and
 * must never change; a change to {@link RecordId} that breaks them needs a new id scheme, not a new pin.
 */
class RecordIdContractTest {
    @Test
    void fileScopedIdsOfTheForwarderAreStable() {
        RecordId.Scope scope = RecordId.fileScope("web-1", 2049, 131073, "2026-12-01 12:00:00 INFO start");
        assertThat(scope.at(0)).isEqualTo("6bedd2be0f79d3e13b3884eb242c4368");
        assertThat(scope.at(4096)).isEqualTo("a4676771ad2e111ccc6dd3602bbfb843");
        assertThat(scope.at(Long.MAX_VALUE)).isEqualTo("a0600a23b405ccdb186e8ed6484d6850");
        assertThat(RecordId.fileScope("", 0, 0, "").at(0)).isEqualTo("e7023d831c2504a0a9a66c7f34cfb9b7");
    }

    @Test
    void contentIdsOfTheCollectorAreStable() {
        byte[] line = "{\"message\":\"hello\"}".getBytes(StandardCharsets.UTF_8);
        // The collector's derivation: salt = hash(tenant) * 31 + line number, content = the line's bytes.
        assertThat(RecordId.ofContent(RecordId.hashOf("acme") * 31 + 1, line, 0, line.length))
                .isEqualTo("538f9b39d0f9a1a8503dc8a84a465fe3");
        assertThat(RecordId.ofContent(RecordId.hashOf("acme") * 31 + 2, line, 0, line.length))
                .isEqualTo("834644b1571cac73930b455400b3531f");
        assertThat(RecordId.ofContent(RecordId.hashOf("globex") * 31 + 1, line, 0, line.length))
                .isEqualTo("5deadbcae9ecf48dfc3a43835cd10e89");
        assertThat(RecordId.ofContent(new byte[0])).isEqualTo("9ca066f1a4ab2eeadb21afb3e0b85ebd");
        assertThat(RecordId.ofContent("x".repeat(1000).getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("c1017eea8c748bc529968738ba2bbd02");
    }
}
