package dev.logpipe.archive.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@Integration
class HotDayTest extends ArchiveTierFixture {
    private List<String> read(long pageBytes) throws IOException {
        List<String> ids = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        try (ShardSearcher s = reads.open(ACME_DAY).orElseThrow()) {
            long n = HotDay.read(s, "acme", pageBytes, (r, decoded) -> {
                ids.add(r.recordId());
                times.add(r.eventTimeMillis());
            });
            assertThat(n).isEqualTo(ids.size());
        }
        assertThat(times).isSorted();
        return ids;
    }

    @Test
    void aDayIsReadOnceInTimeOrderWhateverTheBytesAPassMayHold() throws IOException {
        List<String> whole = read(HotDay.PAGE_BYTES);
        assertThat(whole).hasSize(1500).doesNotHaveDuplicates();
        assertThat(sorted(whole)).isEqualTo(sorted(acmeIds));
        assertThat(read(2_000)).as("a few records per pass").isEqualTo(whole);
        assertThat(read(1)).as("one record per pass").isEqualTo(whole);
    }
}
