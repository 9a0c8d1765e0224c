package dev.logpipe.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecordIdTest {
    @Test
    void sameSourceAndOffsetAlwaysGiveTheSameId() {
        RecordId.Scope a = RecordId.fileScope("host-1", 64768, 883241, "aaf9206b85c5015b");
        RecordId.Scope b = RecordId.fileScope("host-1", 64768, 883241, "aaf9206b85c5015b");
        assertThat(a.at(1048576)).isEqualTo(b.at(1048576)).hasSize(32).matches("[0-9a-f]{32}");
    }

    @Test
    void differentOffsetsHostsAndFilesGiveDifferentIds() {
        Set<String> ids = new HashSet<>();
        for (String host : new String[] {"h1", "h2"}) {
            for (long inode = 1; inode <= 10; inode++) {
                RecordId.Scope s = RecordId.fileScope(host, 1, inode, "fp");
                for (long off = 0; off < 5000; off += 7) {
                    ids.add(s.at(off));
                }
            }
        }
        assertThat(ids).hasSize(2 * 10 * 715);
    }

    @Test
    void writeAtMatchesAt() {
        RecordId.Scope s = RecordId.fileScope("h", 1, 2, "f");
        byte[] dst = new byte[40];
        s.writeAt(77, dst, 4);
        assertThat(new String(dst, 4, 32)).isEqualTo(s.at(77));
    }

    @Test
    void anIdIsOneUrlSegmentOfLettersDigitsAndDotUnderscoreColonDash() {
        assertThat(RecordId.problem(null)).isNull();
        assertThat(RecordId.problem("")).isNull();
        assertThat(RecordId.problem(RecordId.ofContent(new byte[] {1, 2}))).isNull();
        assertThat(RecordId.problem("redacted-0123abcd")).isNull();
        assertThat(RecordId.problem("order-42:v1.2_X")).isNull();
        assertThat(RecordId.problem("...x")).isNull();
        assertThat(RecordId.problem("a".repeat(128))).isNull();
        assertThat(RecordId.problem("a".repeat(129))).contains("longer than 128");
        assertThat(RecordId.problem(".")).contains("only dots");
        assertThat(RecordId.problem("..")).contains("only dots");
        assertThat(RecordId.problem("../../v1/admin/tenants")).contains("character 3");
        assertThat(RecordId.problem("a/b")).contains("character 2");
        assertThat(RecordId.problem("a b")).contains("character 2");
        assertThat(RecordId.problem("a%2Fb")).contains("character 2");
        assertThat(RecordId.problem("é")).contains("character 1");
    }
}
