package dev.logpipe.index.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class TenantDirectoryTest {
    @Test
    void plainIdsStandForThemselves() {
        assertThat(TenantDirectory.encode("acme")).isEqualTo("acme");
        assertThat(TenantDirectory.encode("team-7")).isEqualTo("team-7");
    }

    @Test
    void idsThatDifferOnlyInCaseGetDifferentCaseSafeDirectories() {
        String lower = TenantDirectory.encode("acme");
        String upper = TenantDirectory.encode("Acme");
        assertThat(upper).isEqualTo("_41cme");
        assertThat(upper.toLowerCase(Locale.ROOT)).isNotEqualTo(lower.toLowerCase(Locale.ROOT));
    }

    @Test
    void traversalIsEscaped() {
        assertThat(TenantDirectory.encode("../etc")).isEqualTo("_2e_2e_2fetc");
        assertThat(TenantDirectory.encode(".")).isEqualTo("_2e");
        assertThat(TenantDirectory.encode("a\\b")).doesNotContain("\\");
        assertThat(TenantDirectory.encode("a_b")).isEqualTo("a_5fb"); // the escape character itself is escaped
    }

    @Test
    void emptyLongAndControlIdsAreRefusedWithAReason() {
        assertThatThrownBy(() -> TenantDirectory.encode("")).hasMessageContaining("missing");
        assertThatThrownBy(() -> TenantDirectory.encode(null)).hasMessageContaining("missing");
        assertThatThrownBy(() -> TenantDirectory.encode("x".repeat(129))).hasMessageContaining("longer than 128");
        assertThatThrownBy(() -> TenantDirectory.encode("a\nb")).hasMessageContaining("control");
        assertThatThrownBy(() -> TenantDirectory.encode("ü".repeat(60))).hasMessageContaining("directory name");
    }

    @Test
    void namesEncodeNeverProducesAreNotTenants() {
        assertThat(TenantDirectory.decode("..")).isEmpty();
        assertThat(TenantDirectory.decode("Acme")).isEmpty();
        assertThat(TenantDirectory.decode("_61cme")).isEmpty(); // 'a' escaped is not canonical
        assertThat(TenantDirectory.decode("_4")).isEmpty();
        assertThat(TenantDirectory.decode("lost+found")).isEmpty();
    }

    @Property(tries = 500)
    void encodingIsInjectiveCaseSafeAndReversible(
            @ForAll @StringLength(min = 1, max = 40) String a, @ForAll @StringLength(min = 1, max = 40) String b) {
        if (TenantDirectory.problem(a) != null || TenantDirectory.problem(b) != null) {
            return;
        }
        String ea = TenantDirectory.encode(a);
        String eb = TenantDirectory.encode(b);
        assertThat(ea).matches("[a-z0-9_-]+");
        assertThat(TenantDirectory.decode(ea)).contains(a);
        if (!a.equals(b)) {
            assertThat(ea).isNotEqualTo(eb);
        }
    }
}
