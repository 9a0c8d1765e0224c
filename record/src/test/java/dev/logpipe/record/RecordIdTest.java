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
}
